"""What every document shares: how a step's fields are collected (fields), what a review finds (findings)
and how payments are checked (payments), the blocks a document is laid out in and the parts both contract
forms share (layout), their rendering as Markdown and DOCX (render), how a step asks or answers (draft),
the stored files (artifacts) and the statutes a review cites (citations). No module here imports a
document (checked by the `document-layers` contract in .importlinter)."""
