from generator.cli import main

# Guarded: the paper map's worker process (spawned) imports the main module again.
if __name__ == "__main__":
    raise SystemExit(main())
