"""Real store servers that filterproof starts and stops itself, for backends that need one."""
