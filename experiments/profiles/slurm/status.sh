#!/usr/bin/env bash
# Snakemake's --cluster-status for SLURM: the state of job ID (sbatch --parsable's answer) as
# running, success or failed. A job that ran out of time or memory, or was cancelled, failed.
#   status.sh ID
set -euo pipefail
state=$(sacct -j "$1" --format State --noheader --parsable2 2>/dev/null | head -1 | cut -d' ' -f1)
case "$state" in
  COMPLETED) echo success ;;
  FAILED|TIMEOUT|OUT_OF_MEMORY|CANCELLED|NODE_FAIL|PREEMPTED|BOOT_FAIL|DEADLINE) echo failed ;;
  *) echo running ;;  # PENDING, RUNNING, ..., or not in the accounting yet
esac
