"""The document team (문서 작성): a 주택임대차 표준계약서 from the conversation, reviewed, as Markdown
and DOCX artifacts; missing fields are asked of the person, never invented."""
