"""Analysis: takes Papers, an Embedder and what earlier builds found; gives a Digest and what it found new."""
