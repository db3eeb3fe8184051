"""Finishing: any engine's HTML in, the published site out (head tags, CSP, minified, search index)."""
