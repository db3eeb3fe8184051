"""Analysis: embeddings, keywords, related papers, topics and the map (``Paper`` records to a ``Digest``)."""
