"""``python -m coherence_metric.cli`` runs the command line, as the console script does."""

from . import main

if __name__ == "__main__":
    main()
