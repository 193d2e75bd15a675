package dev.baton.examples.spring;

import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.util.List;
import org.junit.jupiter.api.AfterAll;

/** The same example on the local MariaDB ({@code --spring.datasource.url}, {@code schema-mariadb.sql}). */
class PaymentApplicationMariaDbTest extends PaymentApplicationTest {
    private TestDatabase db;

    @Override
    List<String> arguments() {
        db = TestDatabases.mariadbLocal(); // skips the class where there is none (fails with CI=true)
        dropTables();
        return List.of(
                "--spring.datasource.url=" + db.jdbcUrl(),
                "--spring.datasource.username=" + db.user(),
                "--spring.datasource.password=" + (db.password() == null ? "" : db.password()),
                "--spring.sql.init.platform=mariadb");
    }

    @Override
    String ageOrderSql() {
        return "UPDATE orders SET created_at = created_at - INTERVAL 20 MINUTE WHERE id = ?";
    }

    @AfterAll
    @Override
    void stop() {
        super.stop(); // the workers first: they poll these tables
        dropTables();
    }

    private void dropTables() {
        if (db != null) {
            for (String t : List.of("orders", "payment_ledger", "baton_outbox", "baton_inbox")) {
                db.dropTableIfExists(t);
            }
        }
    }
}
