"""The cache: takes what a build found (vectors, Found, the Digest); gives it to the next build, one file."""
