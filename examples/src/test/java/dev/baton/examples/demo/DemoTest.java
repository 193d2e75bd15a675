package dev.baton.examples.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The demo, small, on each server: Baton's column reads 0 for every defect, the naive one does not. */
class DemoTest {
    private static final Pattern DEFECT = Pattern.compile(
            "^  (premature \"unpaid\" records sent|duplicate records at the third party|lost updates \\(paid, then"
                    + " overwritten\\)|callbacks applied twice|orders left behind)\\s+([\\d,]+)\\s+([\\d,]+)$");

    @ParameterizedTest
    @MethodSource("dev.baton.examples.Servers#oneOfEach")
    void batonReadsZeroOnEveryDefect(Supplier<TestDatabase> server) {
        TestDatabase db = server.get();
        String report = run(args(db, "--orders", "300", "--workers", "3"));
        assertDefects(report);
        assertTrue(report.contains("\n  url         " + db.jdbcUrl() + " as " + db.user() + "\n"), report);
        assertTrue(
                report.matches(
                        "(?s).*\n  tables      naive: \\w+; Baton: orders_\\w+, payment_ledger_\\w+ \\(dropped at the"
                                + " end\\)\n.*"),
                report);
    }

    @Test
    void workerProcessesShareOnlyTheDatabase() {
        TestDatabase db = TestDatabases.postgresEmbedded();
        String report = run(args(db, "--orders", "300", "--workers", "2", "--processes", "2"));
        assertTrue(report.contains("spread over 2 worker JVMs"), report);
        assertDefects(report);
    }

    @Test
    void badOptionsExplainThemselves() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = Demo.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), false, "--orders", "many");
        assertEquals(2, status);
        assertTrue(bytes.toString(StandardCharsets.UTF_8).startsWith("--orders needs a number, was 'many'"));
    }

    @Test
    void anUnknownOptionIsNamedAsUnknownEvenWhenItComesLast() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = Demo.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), false, "--orders", "100", "--fast");
        assertEquals(2, status);
        assertTrue(bytes.toString(StandardCharsets.UTF_8).startsWith("unknown option --fast\n"));
    }

    @Test
    void aDatabaseThatCannotBeUsedIsOneLineWithWhatToDoNotAStackTrace() {
        TestDatabase db = TestDatabases.postgresEmbedded();
        String missing = Demo.withDatabase(db.jdbcUrl(), "no_such_database");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = Demo.run(
                new PrintStream(bytes, true, StandardCharsets.UTF_8),
                false,
                "--jdbc-url",
                missing,
                "--user",
                db.user(),
                "--password",
                db.password() == null ? "" : db.password());
        String report = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(3, status, report);
        assertTrue(
                report.contains("the demo failed: the database at " + missing + " (user " + db.user() + ")"), report);
        assertTrue(report.contains("no_such_database"), "the driver's reason: " + report);
        assertTrue(
                report.contains("  create the database, or use " + Demo.withDatabase(db.jdbcUrl(), "test") + ";"),
                report);
        assertTrue(!report.contains("\tat "), "no stack trace: " + report);
    }

    @Test
    void theHintKeepsTheServerAndTheParameters() {
        assertEquals(
                "jdbc:postgresql://127.0.0.1:5432/test?ssl=false",
                Demo.withDatabase("jdbc:postgresql://127.0.0.1:5432/shop?ssl=false", "test"));
        assertEquals("jdbc:mariadb://db:3306/test", Demo.withDatabase("jdbc:mariadb://db:3306", "test"));
    }

    private static String[] args(TestDatabase db, String... more) {
        List<String> a = new ArrayList<>(List.of("--jdbc-url", db.jdbcUrl(), "--user", db.user()));
        if (db.password() != null) {
            a.add("--password");
            a.add(db.password());
        }
        a.addAll(List.of(more));
        return a.toArray(new String[0]);
    }

    private static String run(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = Demo.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), false, args);
        String report = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, report);
        return report;
    }

    private static void assertDefects(String report) {
        int rows = 0;
        long naive = 0;
        for (String line : report.split("\n")) {
            Matcher m = DEFECT.matcher(line);
            if (m.matches()) {
                rows++;
                naive += Long.parseLong(m.group(2).replace(",", ""));
                assertEquals("0", m.group(3), line + "\n" + report);
            }
        }
        assertEquals(5, rows, report);
        assertTrue(naive > 0, "the naive design shows defects: " + report);
    }
}
