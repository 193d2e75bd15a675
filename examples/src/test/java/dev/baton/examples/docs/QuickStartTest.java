package dev.baton.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.Condition;
import dev.baton.StateMachine;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.examples.docs.QuickStart.Payment;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The README's quick start as a reader pastes it: its Java block is {@link QuickStart} exactly (only the package line
 * differs), its table is created from the DDL printed beside it, and running it gives the results the README states.
 * Each run gets an empty schema (PostgreSQL) or database (MariaDB) of its own, so the table is named {@code orders}
 * as printed.
 */
class QuickStartTest {
    private static final Path README =
            Paths.get("..").toAbsolutePath().normalize().resolve("README.md");
    private static final Path SOURCE = Paths.get("src/main/java/dev/baton/examples/docs/QuickStart.java");
    private static final Pattern FENCE = Pattern.compile("```(\\w*)\\n(.*?)```", Pattern.DOTALL);

    @Test
    void theReadmePrintsQuickStartJavaWholeWithItsImports() throws IOException {
        String source = Files.readString(SOURCE, StandardCharsets.UTF_8);
        String withoutPackage = source.replaceFirst("\\Apackage dev\\.baton\\.examples\\.docs;\\n\\n", "");
        assertTrue(!withoutPackage.equals(source), "QuickStart.java starts with its package line");
        assertEquals(
                withoutPackage,
                quickStartBlocks("java").get(0),
                "README.md's quick start must be examples/src/main/java/dev/baton/examples/docs/QuickStart.java"
                        + " without its package line, character for character");
    }

    @ParameterizedTest
    @MethodSource("dev.baton.examples.Servers#all")
    void theQuickStartRunsOnTheTablePrintedBesideItWithTheResultsTheReadmeStates(Supplier<TestDatabase> server)
            throws SQLException {
        TestDatabase db = server.get();
        String name = TestDatabases.uniqueName("quick_start");
        boolean postgres = db.kind() == DatabaseKind.POSTGRES;
        db.execute(postgres ? "CREATE SCHEMA " + name : "CREATE DATABASE " + name);
        try {
            DataSource dataSource = postgres ? postgres(db, name) : mariadb(db, name);
            try (Connection c = dataSource.getConnection();
                    Statement s = c.createStatement()) {
                for (String statement : statements(ddl(postgres ? "-- PostgreSQL" : "-- MariaDB"))) {
                    s.execute(statement);
                }
            }

            // The same table serves the README's timer job: its queue (as printed there) passes verify() at start-up.
            timerJobQueue(dataSource).verify();

            List<Object> results = QuickStart.run(dataSource);

            assertEquals(5, results.size(), results.toString());
            assertEquals(new TransitionResult.Applied<>(1L, Payment.PAID), results.get(0));
            assertEquals(new TransitionResult.AlreadyInTarget<>(1L, Payment.PAID), results.get(1), "the duplicate");
            TransitionResult.Conflict<?> conflict = assertInstanceOf(TransitionResult.Conflict.class, results.get(2));
            assertEquals(2L, conflict.longId());
            assertEquals("orders_payment_tx_uq", conflict.constraint(), "names the constraint");
            assertEquals(2L, results.get(3), "the sweep expires orders 2 and 3");
            assertEquals(
                    new TransitionResult.Rejected<>(3L, Payment.EXPIRED, Payment.PAID),
                    results.get(4),
                    "the late callback");
            assertEquals(List.of("1 1 gw-1 paid", "2 3 null unpaid", "3 3 null unpaid"), rows(dataSource));
            StringBuilder printed = new StringBuilder();
            results.forEach(r -> printed.append(r).append('\n'));
            assertTrue(
                    quickStartBlocks("").stream().anyMatch(b -> b.endsWith(printed.toString())),
                    "the README shows what main prints (after the log lines):\n" + printed);
        } finally {
            db.execute(postgres ? "DROP SCHEMA " + name + " CASCADE" : "DROP DATABASE " + name);
        }
    }

    /** The README's readme-queue block over the quick start's table (ReadmeQuickStart compiles the block itself). */
    private static ClaimQueue<Sync> timerJobQueue(DataSource dataSource) {
        Baton baton = Baton.using(dataSource);
        StateTable<Payment> orders = baton.table("orders").id("id").state("payment_status", QuickStart.PAYMENT);
        StateMachine<Sync> sync = StateMachine.of(Sync.class)
                .initial(Sync.PENDING)
                .allow(Sync.PENDING, Sync.PROCESSING)
                .allow(Sync.PROCESSING, Sync.PENDING, Sync.COMPLETED, Sync.FAILED)
                .terminal(Sync.COMPLETED, Sync.FAILED)
                .build();
        return baton.<Sync>queue("order-sync")
                .table("orders")
                .id("id")
                .claim("sync_status", sync, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(orders.is(Payment.PAID), Condition.isNull("third_party_guid"))
                .deadState(Sync.FAILED)
                .lease(Duration.ofMinutes(2))
                .build();
    }

    enum Sync {
        PENDING,
        PROCESSING,
        COMPLETED,
        FAILED
    }

    private static List<String> rows(DataSource dataSource) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT id, payment_status, payment_transaction_id, paid_at FROM orders ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getLong(1) + " " + rs.getInt(2) + " " + rs.getString(3) + " "
                        + (rs.getObject(4) == null ? "unpaid" : "paid"));
            }
        }
        return rows;
    }

    private static DataSource postgres(TestDatabase db, String schema) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(db.jdbcUrl());
        ds.setUser(db.user());
        ds.setPassword(db.password() == null ? "" : db.password());
        ds.setCurrentSchema(schema);
        return ds;
    }

    private static DataSource mariadb(TestDatabase db, String database) throws SQLException {
        Matcher url =
                Pattern.compile("^(jdbc:mariadb://[^/?]+)(/[^?]*)?(\\?.*)?$").matcher(db.jdbcUrl());
        assertTrue(url.matches(), "a MariaDB URL: " + db.jdbcUrl());
        MariaDbDataSource ds =
                new MariaDbDataSource(url.group(1) + "/" + database + (url.group(3) == null ? "" : url.group(3)));
        ds.setUser(db.user());
        ds.setPassword(db.password() == null ? "" : db.password());
        return ds;
    }

    /** The quick start's {@code sql} block whose first line is {@code header}. */
    static String ddl(String header) {
        List<String> matching = quickStartBlocks("sql").stream()
                .filter(b -> b.startsWith(header))
                .toList();
        assertEquals(1, matching.size(), "one sql block starting with '" + header + "' in the README's quick start");
        return matching.get(0);
    }

    /** The statements of a DDL block: {@code --} comments dropped, split at the semicolons that end lines. */
    static List<String> statements(String ddl) {
        StringBuilder sql = new StringBuilder();
        for (String line : ddl.split("\n")) {
            int comment = line.indexOf("--");
            sql.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
        }
        List<String> out = new ArrayList<>();
        for (String statement : sql.toString().split(";\\s*\\n")) {
            if (!statement.isBlank()) {
                out.add(statement.strip());
            }
        }
        return out;
    }

    /** The fenced blocks of one language ("" for none) in the README's "Quick start" section. */
    static List<String> quickStartBlocks(String language) {
        String readme;
        try {
            readme = Files.readString(README, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError("cannot read " + README, e);
        }
        int start = readme.indexOf("\n## Quick start\n");
        assertTrue(start >= 0, "README.md has a '## Quick start' section");
        int end = readme.indexOf("\n## ", start + 1);
        Matcher m = FENCE.matcher(readme.substring(start, end < 0 ? readme.length() : end));
        List<String> blocks = new ArrayList<>();
        while (m.find()) {
            if (m.group(1).equals(language)) {
                blocks.add(m.group(2));
            }
        }
        assertTrue(!blocks.isEmpty(), "the README's quick start has a " + language + " block");
        return blocks;
    }
}
