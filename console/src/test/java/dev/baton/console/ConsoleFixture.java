package dev.baton.console;

import com.sun.net.httpserver.HttpServer;
import dev.baton.Baton;
import dev.baton.ClaimQueue;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A queue table with string ids (so that ids can be hostile too), a console over it with a test authenticator, and
 * the JDK server it is mounted on at {@code /ops/baton/}.
 */
final class ConsoleFixture implements AutoCloseable {
    /** The test authenticator's header (HTTP tests) and cookie (browser tests): "operator", "reader" or "nobody". */
    static final String USER_HEADER = "X-Test-User";

    static final String USER_COOKIE = "test_user";

    static final String HOSTILE_ID = "<script>alert('id')</script>\"x";
    static final String HOSTILE_ERROR = "<script>alert(\"boom\")</script><img src=x onerror=alert(1)> it's \"quoted\"";
    static final String LONG_ERROR = "E".repeat(990);

    final TestDatabase db;
    final String table;
    final Baton baton;
    final ClaimQueue<Sync> queue;
    final BatonConsole console;
    final HttpServer server;

    ConsoleFixture(TestDatabase db, boolean operate, int pageSize, Consumer<BatonConsole.Builder> more) {
        this(db, "cn_console", operate, pageSize, more);
    }

    /** As above, the table's name starting with {@code prefix}. */
    ConsoleFixture(TestDatabase db, String prefix, boolean operate, int pageSize, Consumer<BatonConsole.Builder> more) {
        this(db, prefix, operate, pageSize, false, null, more);
    }

    /**
     * As above; {@code keyed}: the queue is ordered per {@code customer} and the console shows {@code died_at} as the
     * time of death; {@code listener}: a Baton listener (null for none).
     */
    ConsoleFixture(
            TestDatabase db,
            String prefix,
            boolean operate,
            int pageSize,
            boolean keyed,
            dev.baton.BatonListener listener,
            Consumer<BatonConsole.Builder> more) {
        this(db, prefix, operate, pageSize, keyed, listener, (b, f) -> more.accept(b));
    }

    /** As above, {@code more} given the fixture too (its queue's name, its Baton). */
    ConsoleFixture(
            TestDatabase db,
            String prefix,
            boolean operate,
            int pageSize,
            boolean keyed,
            dev.baton.BatonListener listener,
            java.util.function.BiConsumer<BatonConsole.Builder, ConsoleFixture> more) {
        this.db = db;
        this.table = TestDatabases.uniqueName(prefix);
        String ts = db.kind().timestampType();
        db.execute("CREATE TABLE " + table + " (id VARCHAR(200) NOT NULL PRIMARY KEY, sync_status INT NOT NULL,"
                + " lease_until " + ts + ", claim_token BIGINT NULL, attempts INT DEFAULT 0 NOT NULL,"
                + " next_attempt_at " + ts + ", last_error VARCHAR(1000) NULL, created_at " + ts + ","
                + " payload VARCHAR(300) NULL, customer VARCHAR(100) NULL, died_at " + ts + ","
                + " receiver_ref VARCHAR(200) NULL)");
        db.execute("CREATE INDEX ix_" + table + " ON " + table + " (sync_status, id)");
        Baton.Builder bb = Baton.builder(db.dataSource());
        if (listener != null) {
            bb.listener(listener);
        }
        this.baton = bb.build();
        if (keyed) {
            db.execute("CREATE INDEX ixk_" + table + " ON " + table + " (customer, id)");
        }
        this.queue = keyed ? keyedQueue(baton, table) : queue(baton, table);
        BatonConsole.Builder b = BatonConsole.builder()
                .queue(queue)
                .authenticator(ConsoleFixture::authenticate)
                .operate(operate)
                .pageSize(pageSize);
        if (keyed) {
            b.deadAtColumn(queue.name(), "died_at");
        }
        more.accept(b, this);
        this.console = b.build();
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        server.createContext("/ops/baton/", console.httpHandler());
        server.start();
    }

    static ClaimQueue<Sync> queue(Baton baton, String table) {
        return baton.<Sync>queue("cs-" + table)
                .table(table)
                .id("id")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .select("payload")
                .deadState(Sync.FAILED)
                .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                .lease(Duration.ofSeconds(30))
                .ageColumn("created_at")
                .build();
    }

    static ClaimQueue<Sync> keyedQueue(Baton baton, String table) {
        return baton.<Sync>queue("cs-" + table)
                .table(table)
                .id("id")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .select("payload")
                .deadState(Sync.FAILED)
                .nonIdempotentSink(Sync.SENDING, Sync.UNKNOWN)
                .lease(Duration.ofSeconds(30))
                .ageColumn("created_at")
                .orderedPerKey("customer")
                .build();
    }

    /** Inserts a dead row of {@code customer} that died at {@code diedAt}. */
    void insertDead(String id, String customer, String error, java.time.Instant diedAt) {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                        + " (id, sync_status, attempts, last_error, payload, customer, died_at, created_at)"
                        + " VALUES (?, ?, 3, ?, ?, ?, ?, " + db.kind().now() + ")")) {
            ps.setString(1, id);
            ps.setInt(2, Sync.FAILED.code());
            ps.setString(3, error);
            ps.setString(4, "{\"order\":\"" + id + "\",\"amount\":12.5}");
            ps.setString(5, customer);
            ps.setTimestamp(6, java.sql.Timestamp.from(diedAt));
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    static ConsoleUser authenticate(ConsoleRequest request) {
        String who = request.header(USER_HEADER);
        if (who == null) {
            who = request.cookie(USER_COOKIE);
        }
        if ("operator".equals(who)) {
            return ConsoleUser.operator("alice-operator");
        }
        if ("reader".equals(who)) {
            return ConsoleUser.reader("bob-reader");
        }
        return null;
    }

    String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/ops/baton/";
    }

    /** Inserts a row in {@code state} with the given attempts and error. */
    void insert(String id, Sync state, int attempts, String error, String payload) {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                        + " (id, sync_status, attempts, last_error, payload, created_at) VALUES (?, ?, ?, ?, ?, "
                        + db.kind().now() + ")")) {
            ps.setString(1, id);
            ps.setInt(2, state.code());
            ps.setInt(3, attempts);
            ps.setString(4, error);
            ps.setString(5, payload);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** The standard rows: 3 pending, {@code dead} dead (two hostile), 2 unknown. */
    void seed(int dead) {
        for (int i = 1; i <= 3; i++) {
            insert("p-" + i, Sync.PENDING, 0, null, "pending " + i);
        }
        insert(HOSTILE_ID, Sync.FAILED, 5, HOSTILE_ERROR, "<b>payload</b>");
        insert("d-long", Sync.FAILED, 7, LONG_ERROR, "x".repeat(300));
        for (int i = 3; i <= dead; i++) {
            insert(String.format("d-%03d", i), Sync.FAILED, 3, "HTTP 500 from the receiver", "dead " + i);
        }
        insert("u-1", Sync.UNKNOWN, 1, "timeout after send", "unknown 1");
        insert("u-2", Sync.UNKNOWN, 2, "timeout after send", "unknown 2");
    }

    Sync state(String id) {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT sync_status FROM " + table + " WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new AssertionError("no row " + id);
                }
                int code = rs.getInt(1);
                for (Sync s : Sync.values()) {
                    if (s.code() == code) {
                        return s;
                    }
                }
                throw new AssertionError("code " + code);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** Rows per state, counted by the database. */
    Map<Sync, Long> counts() {
        Map<Sync, Long> out = new HashMap<>();
        for (Sync s : Sync.values()) {
            out.put(s, 0L);
        }
        try (Connection c = db.connect();
                PreparedStatement ps =
                        c.prepareStatement("SELECT sync_status, COUNT(*) FROM " + table + " GROUP BY sync_status");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                int code = rs.getInt(1);
                for (Sync s : Sync.values()) {
                    if (s.code() == code) {
                        out.put(s, rs.getLong(2));
                    }
                }
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
        return out;
    }

    List<String> deadIds() {
        return queue.deadLetters().list(1000).stream().map(r -> (String) r.id()).toList();
    }

    @Override
    public void close() {
        server.stop(0);
        console.close();
        db.dropTableIfExists(table);
    }
}
