from texbudget.cli import run

run()
