"""upswitch sweeps: describe a grid of simulator runs in YAML, run it locally or on Slurm,
merge the results into one CSV + JSON, and turn them into plots and a report.

Modules, one concept each:
  commands what each upswitch subcommand takes (flags, seed, summary file, default outputs/tables)
  spec     parse and validate a sweep file (SpecError names the offending key)
  plan     expand a spec into runs with stable run ids
  store    the result directory: atomic per-run results, cache, merge-ready reads
  execute  run one simulator invocation into the store (shared by every backend)
  local    the local process-pool backend
  slurm    the Slurm job-array backend and its array-task worker
  merge    merged results.csv / results.json in plan order, tables, seed aggregates
  stats    Student-t quantile, mean and 95% confidence interval
  progress done/failed/remaining lines on stderr
  report   plots (matplotlib, Agg) and the Markdown/HTML report; report_cmds: the coll, p2p and
           workload plots; plotstyle: distinct curve styles, legends, CI bars
"""

FORMAT_VERSION = 1
