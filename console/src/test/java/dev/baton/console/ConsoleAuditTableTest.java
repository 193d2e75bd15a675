package dev.baton.console;

import static dev.baton.console.ConsoleHttpTest.confirmation;
import static dev.baton.console.ConsoleHttpTest.form;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.baton.Baton;
import dev.baton.console.ConsoleHttpTest.Client;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
 * The audit trail in Baton's own table, on the two local servers: the verdict, the force flag and the evidence byte for
 * byte are in the table; a refused POST (a reader's, a forged token) and the losing side of a race are there too; and
 * another instance, and a console started afresh (a restart), show the same trail on the overview and a row's page.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
class ConsoleAuditTableTest {
    @Parameter
    TestServer server;

    static final String KEY = "k3y-of-the-whole-deployment-0123456789";

    @Nested
    class Trail extends DatabaseSuite {
        private ConsoleFixture a;
        private String audit;
        private final List<AutoCloseable> others = new ArrayList<>();

        @AfterEach
        void close() throws Exception {
            for (AutoCloseable c : others) {
                c.close();
            }
            others.clear();
            if (a != null) {
                a.close();
                a = null;
            }
            if (audit != null) {
                database().dropTableIfExists(audit);
            }
        }

        private ConsoleFixture first() {
            audit = TestDatabases.uniqueName("cn3_audit");
            a = new ConsoleFixture(database(), "cn3_trail", true, 50, b -> b.csrfKey(KEY)
                    .auditTable(Baton.using(database().dataSource()), database().dataSource(), audit));
            a.seed(5);
            a.insert("m-1", Sync.FAILED, 3, "may have been sent: timeout after send", "maybe");
            return a;
        }

        /** Another console over A's table and audit table (another instance, or A after a restart); its base URL. */
        private String another() throws Exception {
            Baton baton = Baton.using(database().dataSource());
            BatonConsole console = BatonConsole.builder()
                    .queue(ConsoleFixture.queue(baton, a.table))
                    .authenticator(ConsoleFixture::authenticate)
                    .operate(true)
                    .csrfKey(KEY)
                    .auditTable(baton, database().dataSource(), audit)
                    .build();
            HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            http.createContext("/ops/baton/", console.httpHandler());
            http.start();
            others.add(() -> {
                http.stop(0);
                console.close();
            });
            return "http://127.0.0.1:" + http.getAddress().getPort() + "/ops/baton/";
        }

        /** The audit table's rows, oldest first: action, target, verdict, force, evidence, outcome, result. */
        private List<List<Object>> rows() throws Exception {
            List<List<Object>> out = new ArrayList<>();
            try (Connection c = a.db.connect();
                    PreparedStatement ps = c.prepareStatement("SELECT action, target, verdict, force_flag, evidence,"
                            + " outcome, result, principal FROM " + audit + " ORDER BY id");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    List<Object> r = new ArrayList<>();
                    r.add(rs.getString(1));
                    r.add(rs.getString(2));
                    r.add(rs.getString(3));
                    r.add(rs.getInt(4));
                    r.add(rs.getString(5));
                    r.add(rs.getString(6));
                    r.add(rs.getString(7));
                    r.add(rs.getString(8));
                    out.add(r);
                }
            }
            return out;
        }

        @Test
        void verdictForceAndEvidenceByteForByteSeenByAnotherInstanceAndAfterARestart() throws Exception {
            first();
            Client operator = new Client(a.base(), "operator");
            String token = operator.token(a.queue.name());
            String evidence = "receiver says \"ok\" </b>\r\nchecked by phone\twith Ann \u00e9\u202e";
            HttpResponse<String> resolved = operator.act(form(
                    "op",
                    "resolve",
                    "q",
                    a.queue.name(),
                    "id",
                    "su-1",
                    "verdict",
                    "sent:COMPLETED",
                    "evidence",
                    evidence,
                    "csrf",
                    token));
            assertEquals("Done", ConsoleHttpTest.heading(resolved.body()));
            HttpResponse<String> forced =
                    operator.act(form("op", "requeue", "q", a.queue.name(), "id", "sm-1", "force", "1", "csrf", token));
            assertEquals("Done", ConsoleHttpTest.heading(forced.body()));

            List<List<Object>> rows = rows();
            assertEquals(2, rows.size(), rows.toString());
            assertEquals(
                    List.of(
                            "resolve",
                            "u-1",
                            "sent:COMPLETED",
                            0,
                            evidence,
                            "changed",
                            "Done (COMPLETED)",
                            "alice-operator"),
                    rows.get(0));
            assertEquals("requeue", rows.get(1).get(0));
            assertEquals(1, rows.get(1).get(3), "the force flag");
            assertEquals("Applied (PENDING)", rows.get(1).get(6));

            // another instance shows them, and so does a console started afresh (A's memory has none of them)
            String b = another();
            Client onB = new Client(b, "reader");
            String overview = onB.get("").body();
            assertTrue(overview.contains("resolve (sent:COMPLETED)"), overview);
            assertTrue(overview.contains("requeue (even if sent)"), overview);
            a.console.close();
            String restarted = another();
            String row = new Client(restarted, "reader")
                    .get("row?q=" + URLEncoder.encode(a.queue.name(), StandardCharsets.UTF_8) + "&id=su-1")
                    .body();
            assertTrue(row.contains("id=\"row-audit\""), row);
            assertTrue(row.contains("resolve (sent:COMPLETED)"), row);
            assertTrue(row.contains("checked by phone"), row);
        }

        @Test
        void refusedAttemptsAndTheLosingSideOfARaceAreInTheTable() throws Exception {
            first();
            Client operator = new Client(a.base(), "operator");
            Client reader = new Client(a.base(), "reader");
            String token = operator.token(a.queue.name());

            // a reader's crafted POST, and an operator's POST with a forged token: both 403, both recorded
            assertEquals(
                    403,
                    reader.post("action", form("op", "requeue", "q", a.queue.name(), "id", "sd-003", "csrf", token))
                            .statusCode());
            assertEquals(
                    403,
                    operator.post(
                                    "action",
                                    form(
                                            "op",
                                            "requeue",
                                            "q",
                                            a.queue.name(),
                                            "id",
                                            "sd-004",
                                            "csrf",
                                            "forged" + token.substring(6)))
                            .statusCode());

            // two tabs confirm the same requeue: one moves it, the other is told nothing was done, and both are kept
            Map<String, String> tab1 = confirmation(
                    operator.post("action", form("op", "requeue", "q", a.queue.name(), "id", "sd-005", "csrf", token))
                            .body());
            Map<String, String> tab2 = confirmation(
                    operator.post("action", form("op", "requeue", "q", a.queue.name(), "id", "sd-005", "csrf", token))
                            .body());
            assertEquals("Done", ConsoleHttpTest.heading(operator.submit(tab1).body()));
            assertEquals(
                    "Nothing done",
                    ConsoleHttpTest.heading(operator.submit(tab2).body()));

            List<List<Object>> rows = rows();
            assertEquals(4, rows.size(), rows.toString());
            assertEquals(List.of("refused requeue", "sd-003"), rows.get(0).subList(0, 2), "the id as it was sent");
            assertEquals("refused", rows.get(0).get(5));
            assertEquals("refused: may not operate", rows.get(0).get(6));
            assertEquals("bob-reader", rows.get(0).get(7));
            assertEquals(
                    "refused: missing, expired or wrong CSRF token", rows.get(1).get(6));
            assertEquals("alice-operator", rows.get(1).get(7));
            assertEquals(List.of("requeue", "d-005"), rows.get(2).subList(0, 2));
            assertEquals("changed", rows.get(2).get(5));
            assertEquals("unchanged", rows.get(3).get(5), "the losing tab");
            assertEquals("AlreadyInTarget (PENDING)", rows.get(3).get(6));
            assertEquals(Sync.FAILED, a.state("d-003"));
            assertEquals(Sync.FAILED, a.state("d-004"));
        }
    }
}
