"""The recommendation strategies: the baselines, the classical strategies, the meta-
learners and ``auto``, which chooses among them or combines them."""
