"""The knowledge base: past studies summarised per (dataset, configuration), the datasets'
descriptions, the file it is kept in, and the time model."""
