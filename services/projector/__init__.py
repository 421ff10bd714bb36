"""The projector: folds the event log, in position order and exactly once, into read models.

Two projections live here: the todo of each run (what the person watches move)
and the final state of each run with a per-session history. Both are pure folds
(`todo.evolve`, `final_state.evolve`) that `runner.Projector` applies to the
store with a checkpoint; a rebuild is the same fold from position 0.
"""
