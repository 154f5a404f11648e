"""``python -m kopa_replay``: the command line, for launchers that take a module (``accelerate launch -m``)."""

from kopa_replay.cli import main

if __name__ == "__main__":
    main()
