"""Paper Digest: research-paper abstracts in, a searchable static website out."""

__version__ = "0.1.0"
