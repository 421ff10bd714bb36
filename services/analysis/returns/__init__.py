"""Returns on a purchase: yearly cash flows by growth scenario (scenarios), IRR and equity multiple
(measures), and the roi tool that answers with them (roi_analysis)."""
