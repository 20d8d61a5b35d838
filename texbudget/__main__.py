import sys

from texbudget.cli import main

sys.exit(main())
