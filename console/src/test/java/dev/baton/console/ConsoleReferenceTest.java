package dev.baton.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Resolving an unknown send as sent with the receiver's reference: written to the queue's reference column with the
 * completion when the console names one, kept in the audit (the table, the log line, the listeners) either way;
 * bounded, one line of visible text, and only with "sent".
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
class ConsoleReferenceTest {
    @Parameter
    TestServer server;

    @Nested
    class Resolve extends DatabaseSuite {
        private ConsoleFixture f;
        private String audit;
        private final List<ConsoleAction> audited = new ArrayList<>();

        @AfterEach
        void close() {
            if (f != null) {
                f.close();
                f = null;
            }
            if (audit != null) {
                database().dropTableIfExists(audit);
                audit = null;
            }
            audited.clear();
        }

        private void open(boolean column) {
            audit = TestDatabases.uniqueName("cn4_audit");
            f = new ConsoleFixture(database(), "cn_ref", true, 50, false, null, (b, fx) -> {
                b.audit(audited::add)
                        .auditTable(
                                Baton.using(database().dataSource()), database().dataSource(), audit);
                if (column) {
                    b.referenceColumn(fx.queue.name(), "receiver_ref");
                }
            });
            f.seed(4);
            f.console.sample();
        }

        private Map<String, String> resolve(String token, String id, String verdict, String reference) {
            return ConsoleHttpTest.form(
                    "op",
                    "resolve",
                    "q",
                    f.queue.name(),
                    "id",
                    "s" + id,
                    "verdict",
                    verdict,
                    "evidence",
                    "receiver shows payment",
                    "reference",
                    reference,
                    "csrf",
                    token);
        }

        private String column(String id) throws Exception {
            try (Connection c = f.db.connect();
                    PreparedStatement ps =
                            c.prepareStatement("SELECT receiver_ref FROM " + f.table + " WHERE id = ?")) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    return rs.getString(1);
                }
            }
        }

        private String auditResult() throws Exception {
            try (Connection c = f.db.connect();
                    PreparedStatement ps = c.prepareStatement("SELECT result FROM " + audit + " ORDER BY id DESC");
                    ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "no audit row");
                return rs.getString(1);
            }
        }

        @Test
        void theReferenceGoesToItsColumnWithTheCompletionAndIntoTheAudit() throws Exception {
            open(true);
            ConsoleHttpTest.Client operator = new ConsoleHttpTest.Client(f.base(), "operator");
            String page = operator.get("queue?q=" + f.queue.name()).body();
            assertTrue(
                    ConsoleHttpTest.row(page, "su-1")
                            .contains("<input type=\"text\" name=\"reference\" size=\"16\" maxlength=\"200\">"),
                    "the resolve form has the field");
            String token = operator.token(f.queue.name());
            String ref = "pi_3Q<b>x</b> \"4711\" & co";
            HttpResponse<String> confirm = operator.post("action", resolve(token, "u-1", "sent:COMPLETED", ref));
            assertEquals(200, confirm.statusCode(), confirm.body());
            assertTrue(
                    confirm.body()
                            .contains(
                                    "with the receiver&#39;s reference &quot;pi_3Q&lt;b&gt;x&lt;/b&gt; &quot;4711&quot;"
                                            + " &amp; co&quot; (written to column receiver_ref)"),
                    confirm.body());
            HttpResponse<String> result = operator.submit(ConsoleHttpTest.confirmation(confirm.body()));
            assertEquals(
                    "Resolved as sent: unknown send u-1 is COMPLETED now, with the receiver's reference \"" + ref
                            + "\" in column receiver_ref.",
                    ConsoleHttpTest.result(result.body()));
            assertEquals(Sync.COMPLETED, f.state("u-1"));
            assertEquals(ref, column("u-1"), "written with the completion, as typed");
            assertEquals("Done (COMPLETED); receiver's reference \"" + ref + "\" in receiver_ref", auditResult());
            assertEquals(
                    "Done (COMPLETED); receiver's reference \"" + ref + "\" in receiver_ref",
                    audited.get(0).result());
            // the overview's recent actions show it, escaped
            assertTrue(
                    operator.get("").body().contains("receiver&#39;s reference &quot;pi_3Q&lt;b&gt;x&lt;/b&gt;"),
                    "on the overview");

            // without a reference, the column stays as it was
            HttpResponse<String> plain = operator.act(resolve(token, "u-2", "sent:COMPLETED", ""));
            assertEquals("Resolved as sent: unknown send u-2 is COMPLETED now.", ConsoleHttpTest.result(plain.body()));
            assertNull(column("u-2"));
            assertEquals("Done (COMPLETED)", auditResult());
        }

        @Test
        void withoutAColumnTheReferenceIsKeptInTheAuditOnly() throws Exception {
            open(false);
            ConsoleHttpTest.Client operator = new ConsoleHttpTest.Client(f.base(), "operator");
            String token = operator.token(f.queue.name());
            HttpResponse<String> confirm = operator.post("action", resolve(token, "u-1", "sent:COMPLETED", "R-77"));
            assertTrue(confirm.body().contains("(kept in the audit: this queue has no column for it)"), confirm.body());
            HttpResponse<String> result = operator.submit(ConsoleHttpTest.confirmation(confirm.body()));
            assertEquals(
                    "Resolved as sent: unknown send u-1 is COMPLETED now; the receiver's reference \"R-77\" is kept"
                            + " in the audit.",
                    ConsoleHttpTest.result(result.body()));
            assertNull(column("u-1"));
            assertEquals("Done (COMPLETED); receiver's reference \"R-77\"", auditResult());
        }

        @Test
        void anOverlongOrControlBearingReferenceOrOneWithAnotherVerdictIsA400() throws Exception {
            open(true);
            ConsoleHttpTest.Client operator = new ConsoleHttpTest.Client(f.base(), "operator");
            String token = operator.token(f.queue.name());
            for (String bad : List.of(
                    "R".repeat(201),
                    "line\nbreak",
                    "tab\there",
                    "cr\rhere",
                    "nul\u0000",
                    "bidi \u202Edeifirev",
                    "zw\u200B")) {
                HttpResponse<String> r = operator.post("action", resolve(token, "u-1", "sent:COMPLETED", bad));
                assertEquals(400, r.statusCode(), bad);
                assertTrue(r.body().contains("receiver&#39;s reference"), r.body());
            }
            for (String verdict : List.of("not-sent", "dead")) {
                HttpResponse<String> r = operator.post("action", resolve(token, "u-1", verdict, "R-1"));
                assertEquals(400, r.statusCode(), verdict);
                assertTrue(r.body().contains("goes with the verdict &quot;sent&quot; only"), r.body());
            }
            assertEquals(
                    200,
                    operator.post("action", resolve(token, "u-1", "sent:COMPLETED", "R".repeat(200)))
                            .statusCode());
            assertEquals(Sync.UNKNOWN, f.state("u-1"), "nothing ran");
            assertNull(column("u-1"));
            assertTrue(audited.isEmpty());
        }
    }

    @Test
    void theReferenceColumnIsCheckedAtBuild() {
        assertThrows(dev.baton.InvalidIdentifierException.class, () -> BatonConsole.builder()
                .referenceColumn("q", "ref; DROP TABLE x"));
    }
}
