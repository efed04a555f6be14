"""Scripts that write the documents of this folder (``python -m docs.reproduce``)."""
