"""``python -m tools.gpu_route ...`` from the checkout's root: the route's command line (:mod:`.cli`)."""

from .cli import main

if __name__ == "__main__":
    main()
