"""Run the kopa-replay command line from a checkout: ``python cli.py --help``."""

from kopa_replay.cli import main

if __name__ == "__main__":
    main()
