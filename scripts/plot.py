#!/usr/bin/python3
"""Plots and a Markdown/HTML report of a finished sweep (the same as `sweep.py report`).

    plot.py DIR [--out REPORT_DIR]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from upswitch_sweep.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["report"] + sys.argv[1:]))
