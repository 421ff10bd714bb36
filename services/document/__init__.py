"""The document team (문서 작성): the lease, the sale contract and the loan application checklist, each
from the conversation, reviewed, as Markdown and DOCX artifacts; missing fields are asked of the person,
never invented."""
