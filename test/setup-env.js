// In-process apps in tests log only warnings; child processes set their own LOG_LEVEL.
process.env.LOG_LEVEL = process.env.LOG_LEVEL || 'warn';
