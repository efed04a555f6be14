"""Evaluating the strategies: one family of datasets held out at a time, each order scored
on the held-out data (by tests, time and budget), and summarised with uncertainty."""
