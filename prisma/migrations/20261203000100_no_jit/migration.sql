-- No JIT compilation for this database's sessions (primary and replicas alike, through any pooler).
-- The console's and the worker's statements are short index reads and writes, but over a partitioned
-- inbox of millions of rows their plans carry branches (never executed) whose estimated cost passes
-- jit_above_cost: PostgreSQL then spent ~250 ms compiling an events search that runs in 2 ms. A role
-- that may not alter the database (not its owner) keeps the server's setting, said in a notice.
DO $$
BEGIN
    EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'jit stays as the server sets it: only the owner of database % may turn it off for the database', current_database();
END
$$;
