#!/usr/bin/python3
"""Run grids of upswitch simulations locally or on Slurm, merge and report (doc/sweeps.md).

    sweep.py plan   SWEEP.yaml                      print the runs, with their run ids
    sweep.py run    SWEEP.yaml [--backend local|slurm] [--jobs N] [--out DIR]
    sweep.py report DIR [--out REPORT_DIR]          plots + report.md/index.html
    sweep.py merge  DIR                             merge the results in DIR again
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from upswitch_sweep.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
