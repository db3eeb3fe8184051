"""The renderer: complete Markdown and one settings file in, the site's HTML out (MkDocs or Zensical)."""
