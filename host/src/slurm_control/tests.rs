//! Tests of the Slurm controller against a scripted cluster.
