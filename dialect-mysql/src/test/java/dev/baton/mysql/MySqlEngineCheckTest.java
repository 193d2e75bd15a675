package dev.baton.mysql;

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
 * The engine check on the local MariaDB: it passes there, and a server that answers {@code VERSION()} as
 * TiDB does (the real server's answer rewritten; no TiDB runs here) is refused when Baton detects the
 * dialect, and reported by {@code verify()} when the dialect was given explicitly.
 */
class MySqlEngineCheckTest {
    private static final String TIDB = "8.0.11-TiDB-v8.5.6";

    @Test
    void mariaDbPassesAndAServerAnsweringAsTiDbIsRefusedWithTheReason() {
        TestDatabase db = TestDatabases.mariadbLocal();
        JobsTable jobs = JobsTable.create(db, "my_engine", true);
        try {
            StateTable<Payment> real =
                    Baton.using(db.dataSource()).table(jobs.name()).state("payment_status", Payment.MACHINE);
            real.verify();

            RewritingDataSource tidb =
                    RewritingDataSource.answering(db.dataSource(), MySqlDiagnostics.VERSION_SQL, TIDB);
            UnsupportedDatabaseException refused =
                    assertThrows(UnsupportedDatabaseException.class, () -> Baton.using(tidb));
            assertTrue(refused.getMessage().contains("TiDB"), refused.getMessage());

            StateTable<Payment> explicit = Baton.builder(tidb)
                    .dialect(new MySqlDialect())
                    .build()
                    .table(jobs.name())
                    .state("payment_status", Payment.MACHINE);
            SchemaMismatchException e = assertThrows(SchemaMismatchException.class, explicit::verify);
            assertTrue(e.getMessage().contains("TiDB"), e.getMessage());
        } finally {
            jobs.drop();
        }
    }
}
