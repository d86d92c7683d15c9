"""Command-line arguments that run a kit study at a small size: the path a test guards, not the
paper's sizes."""

#: study 1 (asia_mag_nced): one graph of 500 rows per learner, one sweep setting, two k values
STUDY1_SMALL = ["-p", "n_graphs", "1", "-p", "n_samples", "500", "-p", "sensitivity_graphs", "1",
                "-p", "sensitivity_sample_sizes", "[500]", "-p", "sensitivity_alphas", "[0.05]",
                "-p", "sensitivity_ci_tests", "[fisher_z]", "-p", "ks", "[0.0, 0.2]"]
