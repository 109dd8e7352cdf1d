"""FileStore adapters (application/ports/files.py): the local filesystem and S3-compatible stores."""
