"""``python -m ccsim``: the same as the ``ccsim`` command."""

from ccsim.cli import main

if __name__ == "__main__":
    main()
