"""Batch results as a columnar dataset (issue #27): each chunk's rows as typed Parquet files
(`chunk_writer`), an export as its chunks' files and a manifest, read with DuckDB (`dataset`).
Nothing is imported here: pyarrow and DuckDB load only where a batch result is written or read."""
