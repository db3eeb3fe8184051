"""The site: Markdown pages from the templates, the MkDocs configuration, the build and its output."""
