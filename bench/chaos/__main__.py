import sys

from bench.chaos.suite import main

sys.exit(main())
