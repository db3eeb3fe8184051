"""What a build keeps for the next one: stored analyses, keyword candidates, atomic cache files."""
