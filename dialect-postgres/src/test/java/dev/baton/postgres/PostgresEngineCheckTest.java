package dev.baton.postgres;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.SchemaMismatchException;
import dev.baton.StateTable;
import dev.baton.UnsupportedDatabaseException;
import dev.baton.testkit.compat.JobsTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.faults.RewritingDataSource;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import org.junit.jupiter.api.Test;

/**
 * The engine check on the local PostgreSQL: it passes there, and a server that answers {@code version()} as
 * CockroachDB does (the real server's answer rewritten; no CockroachDB runs here) is refused when Baton detects the
 * dialect, and reported by {@code verify()} when the dialect was given explicitly.
 */
class PostgresEngineCheckTest {
    private static final String CRDB = "CockroachDB CCL v24.1.0 (x86_64-pc-linux-gnu, built 2024/05/15, go1.22.2)";

    @Test
    void postgresPassesAndAServerAnsweringAsCockroachDbIsRefusedWithTheReason() {
        TestDatabase db = TestDatabases.postgresLocal();
        JobsTable jobs = JobsTable.create(db, "pg_engine", true);
        try {
            StateTable<Payment> real =
                    Baton.using(db.dataSource()).table(jobs.name()).state("payment_status", Payment.MACHINE);
            real.verify();

            RewritingDataSource crdb =
                    RewritingDataSource.answering(db.dataSource(), PostgresDiagnostics.VERSION_SQL, CRDB);
            UnsupportedDatabaseException refused =
                    assertThrows(UnsupportedDatabaseException.class, () -> Baton.using(crdb));
            assertTrue(refused.getMessage().contains("CockroachDB"), refused.getMessage());

            StateTable<Payment> explicit = Baton.builder(crdb)
                    .dialect(new PostgresDialect())
                    .build()
                    .table(jobs.name())
                    .state("payment_status", Payment.MACHINE);
            SchemaMismatchException e = assertThrows(SchemaMismatchException.class, explicit::verify);
            assertTrue(e.getMessage().contains("CockroachDB"), e.getMessage());
        } finally {
            jobs.drop();
        }
    }
}
