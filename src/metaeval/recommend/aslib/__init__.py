"""ASlib scenarios (Bischl et al. 2016): read one as a knowledge base, evaluate the
strategies on its own folds, write a study as one."""
