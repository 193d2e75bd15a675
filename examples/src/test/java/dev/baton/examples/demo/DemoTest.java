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
    @MethodSource("dev.baton.examples.Servers#all")
    void batonReadsZeroOnEveryDefect(Supplier<TestDatabase> server) {
        TestDatabase db = server.get();
        String report = run(args(db, "--orders", "300", "--workers", "3"));
        assertDefects(report);
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
