"""ctxsim experiments: one module per reproduced result, one CLI (`ctxsim`)."""
