package dev.baton.testkit.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.BeginResult;
import dev.baton.ClaimQueue;
import dev.baton.Condition;
import dev.baton.EnqueueResult;
import dev.baton.IdempotencyKeys;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.ReceiveResult;
import dev.baton.SchemaMismatchException;
import dev.baton.StateTable;
import dev.baton.spi.Dialect;
import dev.baton.spi.OwnTableDialect.OwnTable;
import dev.baton.testkit.DatabaseSuite;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TimeZone;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Leases across time zones and past 2038. Two "hosts" differ in the JVM's default zone and in the
 * session zone of their connections (New York, {@code -05:00}; Berlin, {@code +01:00}), as two services deployed in
 * different regions would: a lease one of them takes must hold for the other for its whole length and end for both at
 * the same instant; the host's time columns written with {@code setNow} and read by {@code olderThan} mean the same
 * instant in both. Then a clock shifted past 2038-01-19 (where MySQL's {@code TIMESTAMP} ends) must take, hold and
 * reclaim leases, on a host's queue and on Baton's own tables.
 */
public abstract class AbstractTimeZoneCompatibilityTest extends DatabaseSuite {
    private static final Duration LEASE = Duration.ofMinutes(5);
    /** Later than every lease here has run out. */
    private static final long AFTER_LEASE = Duration.ofMinutes(6).toMillis();
    /** 2039-06-01, past the end of MySQL's and MariaDB's {@code TIMESTAMP} (2038-01-19 03:14:07 UTC). */
    private static final Instant AFTER_2038 = Instant.parse("2039-06-01T00:00:00Z");

    private TestDatabase db;
    private Dialect dialect;
    private JobsTable jobs;
    private final List<String> tables = new ArrayList<>();

    /** For the dialect modules' nested classes. */
    protected AbstractTimeZoneCompatibilityTest() {}

    /** A host: the JVM's default zone while it works, and its sessions' zone. */
    private record Host(String jvmZone, String sessionOffset) {}

    private static final Host NEW_YORK = new Host("America/New_York", "-05:00");
    private static final Host BERLIN = new Host("Europe/Berlin", "+01:00");

    @Override
    protected void setUp() {
        db = database();
        dialect = Baton.using(db.dataSource()).dialect();
        jobs = JobsTable.create(db, "zones", true);
    }

    @Override
    protected void tearDown() {
        jobs.drop();
        for (String t : tables) {
            db.dropTableIfExists(t);
        }
    }

    @Test
    void aLeaseTakenInOneZoneHoldsInAnotherAndEndsForBoth() throws InterruptedException {
        for (Host[] pair : new Host[][] {{NEW_YORK, BERLIN}, {BERLIN, NEW_YORK}}) {
            Host taker = pair[0];
            Host other = pair[1];
            db.execute("DELETE FROM " + jobs.name());
            jobs.insert(1, 1, Payment.PAID);
            assertEquals(1, on(taker, 0, b -> queue(b).claim(1)).size(), "claimed in " + taker);
            Thread.sleep(1000);
            String lease = "a " + LEASE + " lease taken in " + taker + ", seen from " + other;
            assertEquals(0L, count(other, 0, b -> queue(b).reclaimExpired()), lease + " was reclaimed after 1 s");
            assertEquals(List.of(), on(other, 0, b -> queue(b).claim(1)), lease + " was claimed again after 1 s");
            assertEquals(Sync.PROCESSING, jobs.sync(1));
            assertEquals(
                    1L, count(other, AFTER_LEASE, b -> queue(b).reclaimExpired()), lease + " never ends for the other");
            assertEquals(Sync.PENDING, jobs.sync(1));
        }
    }

    @Test
    void ownTableLeasesAgreeAcrossZones() {
        IdempotencyKeys.Options keyOptions = IdempotencyKeys.Options.defaults().lease(LEASE);
        String keys = newTable("zkeys");
        Baton.using(db.dataSource()).ownTables().createIdempotencyKeysTable(keys);
        assertInstanceOf(BeginResult.Started.class, on(NEW_YORK, 0, b -> b.idempotencyKeys(keys, keyOptions)
                .begin("s", "k", "f")));
        assertInstanceOf(
                BeginResult.InProgress.class,
                on(BERLIN, 0, b -> b.idempotencyKeys(keys, keyOptions).begin("s", "k", "f")),
                "an idempotency key's lease taken in New York ended at once in Berlin");
        assertInstanceOf(
                BeginResult.Started.class,
                on(BERLIN, AFTER_LEASE, b -> b.idempotencyKeys(keys, keyOptions).begin("s", "k", "f")),
                "an idempotency key's lease taken in New York never ends in Berlin");

        Outbox.Options outboxOptions = Outbox.Options.defaults().lease(LEASE);
        String outbox = newTable("zbox");
        Baton.using(db.dataSource()).ownTables().createOutboxTable(outbox);
        on(BERLIN, 0, b -> b.outbox(outbox, outboxOptions).enqueue(Message.of("t", "m")));
        assertEquals(
                1,
                on(BERLIN, 0, b -> b.outbox(outbox, outboxOptions).queue().claim(1))
                        .size());
        assertEquals(
                0L,
                count(NEW_YORK, 0, b -> b.outbox(outbox, outboxOptions).queue().reclaimExpired()),
                "an outbox lease taken in Berlin ended at once in New York");
        assertEquals(
                1L,
                count(NEW_YORK, AFTER_LEASE, b -> b.outbox(outbox, outboxOptions)
                        .queue()
                        .reclaimExpired()),
                "an outbox lease taken in Berlin never ends in New York");
    }

    /**
     * The host's time columns: {@code setNow} writes the database's UTC clock, and {@code olderThan} compares with it,
     * so a value written in one zone means the same instant in another, and rows the host stamps in UTC age right.
     */
    @Test
    void hostTimeColumnsMeanTheSameInstantInEveryZone() throws SQLException {
        db.execute("DELETE FROM " + jobs.name());
        jobs.insert(1, 3, Payment.PENDING); // stamped with the database's UTC clock, as the host would
        db.execute("UPDATE " + jobs.name() + " SET created_at = " + db.kind().minutesAgo(30) + " WHERE id = 1");
        on(NEW_YORK, 0, b -> payments(b)
                .transition(2L, Payment.PENDING, Payment.PAID)
                .setNow("next_attempt_at")
                .apply());
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(db.kind().sessionZoneSql(BERLIN.sessionOffset()));
            try (ResultSet rs = s.executeQuery("SELECT CASE WHEN next_attempt_at <= "
                    + db.kind().now()
                    + " AND next_attempt_at > " + db.kind().minutesAgo(1) + " THEN 1 ELSE 0 END FROM " + jobs.name()
                    + " WHERE id = 2")) {
                rs.next();
                assertEquals(1, rs.getInt(1), "setNow in New York is not the database's UTC clock seen from Berlin");
            }
        }
        for (Host host : List.of(BERLIN, NEW_YORK)) {
            long moved = on(host, 0, b -> payments(b)
                    .bulk(Payment.PENDING, Payment.FAILED)
                    .where(Condition.olderThan("created_at", Duration.ofMinutes(10)))
                    .apply()
                    .rows());
            assertEquals(
                    host == BERLIN ? 1L : 0L,
                    moved,
                    "olderThan(10 min) in " + host + " on rows stamped 30 and 0 minutes ago (the first run moves it)");
        }
        assertEquals(Payment.FAILED, Payment.MACHINE.fromCode(code(1)).orElseThrow());
        assertEquals(Payment.PENDING, Payment.MACHINE.fromCode(code(3)).orElseThrow(), "a fresh row was too old");
    }

    /**
     * A time column that Baton compares with its UTC clock but whose default fills it with a local
     * wall clock mixes zones, and {@code verify()} refuses it naming the UTC default; a PostgreSQL {@code timestamptz}
     * stores instants whatever its default.
     */
    @Test
    void aTimeColumnDefaultingToALocalWallClockIsRefusedByVerify() {
        ClaimQueue<Sync> queue = jobs.queue(Baton.using(db.dataSource()), LEASE);
        queue.verify();
        db.execute(db.kind().localClockDefaultSql(jobs.name(), "created_at"));
        if (!db.kind().localClockDefaultHoldsWallClock()) {
            queue.verify();
            return;
        }
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, queue::verify);
        assertTrue(e.getMessage().contains("age column created_at defaults to "), e.getMessage());
        assertTrue(e.getMessage().contains("a local wall clock"), e.getMessage());
        assertTrue(
                e.getMessage()
                        .contains("make its default "
                                + (db.kind().now().startsWith("UTC_TIMESTAMP")
                                        ? "(UTC_TIMESTAMP(6))"
                                        : db.kind().now())),
                e.getMessage());
    }

    @Test
    void leasesWorkPast2038() {
        long to2039 = Duration.between(Instant.now(), AFTER_2038).toMillis();
        db.execute("DELETE FROM " + jobs.name());
        jobs.insert(1, 1, Payment.PAID);
        assertEquals(1, on(BERLIN, to2039, b -> queue(b).claim(1)).size(), "a lease ending in 2039");
        assertEquals(0L, count(BERLIN, to2039, b -> queue(b).reclaimExpired()), "a lease ending in 2039 ended at once");
        assertEquals(1L, count(NEW_YORK, to2039 + AFTER_LEASE, b -> queue(b).reclaimExpired()));
        assertEquals(Sync.PENDING, jobs.sync(1));
    }

    @Test
    void ownTablesWorkPast2038() {
        long to2039 = Duration.between(Instant.now(), AFTER_2038).toMillis();
        Baton real = Baton.using(db.dataSource());
        String outbox = newTable("fbox");
        real.ownTables().createOutboxTable(outbox);
        Outbox.Options options = Outbox.Options.defaults().lease(LEASE);
        assertInstanceOf(EnqueueResult.Enqueued.class, on(BERLIN, to2039, b -> b.outbox(outbox, options)
                .enqueue(Message.of("t", "2039"))));
        assertEquals(
                1,
                on(BERLIN, to2039, b -> b.outbox(outbox, options).queue().claim(1))
                        .size());
        assertEquals(
                0L, count(BERLIN, to2039, b -> b.outbox(outbox, options).queue().reclaimExpired()));
        assertEquals(1L, count(BERLIN, to2039 + AFTER_LEASE, b -> b.outbox(outbox, options)
                .queue()
                .reclaimExpired()));

        String keys = newTable("fkeys");
        real.ownTables().createIdempotencyKeysTable(keys);
        IdempotencyKeys.Options keyOptions = IdempotencyKeys.Options.defaults().lease(LEASE);
        assertInstanceOf(BeginResult.Started.class, on(BERLIN, to2039, b -> b.idempotencyKeys(keys, keyOptions)
                .begin("s", "k", "f")));
        assertInstanceOf(BeginResult.InProgress.class, on(BERLIN, to2039, b -> b.idempotencyKeys(keys, keyOptions)
                .begin("s", "k", "f")));
        assertInstanceOf(
                BeginResult.Started.class, on(BERLIN, to2039 + AFTER_LEASE, b -> b.idempotencyKeys(keys, keyOptions)
                        .begin("s", "k", "f")));

        String inbox = newTable("finbox");
        real.ownTables().createInboxTable(inbox);
        assertInstanceOf(ReceiveResult.FirstDelivery.class, on(BERLIN, to2039, b -> b.inbox(inbox)
                .receive("s", "m")));
        assertInstanceOf(ReceiveResult.Duplicate.class, on(BERLIN, to2039, b -> b.inbox(inbox)
                .receive("s", "m")));
        long twoDays = Duration.ofDays(2).toMillis();
        assertEquals(
                1L,
                count(BERLIN, to2039 + twoDays, b -> b.inbox(inbox).deleteOlderThan(Duration.ofDays(1))),
                "a delivery received in 2039 is cleaned up after its age");
    }

    /**
     * An outbox created by the first release's file ({@code V3}) with a message in flight, in a session five hours
     * behind UTC: the shipped upgrade files, run in that same session as Flyway would, keep the message's lease and
     * age (MySQL's {@code V6} converts its columns in UTC and restores the session's zone) and add the receipt
     * ({@code V7}), after which the outbox works and {@code verify()} accepts the table.
     */
    @Test
    void anOutboxOfTheFirstReleaseIsUpgradedByTheShippedFiles() throws Exception {
        String table = newTable("upbox");
        String oldClock = db.kind().now().replace("UTC_TIMESTAMP", "CURRENT_TIMESTAMP"); // what V3's Baton wrote
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(db.kind().sessionZoneSql(NEW_YORK.sessionOffset()));
            for (String sql :
                    shipped(dialect.ownTables().ddlScript(OwnTable.OUTBOX).orElseThrow(), table)) {
                s.execute(sql);
            }
            s.execute("INSERT INTO " + table + " (topic, payload, status, attempts, lease_until, created_at) VALUES"
                    + " ('t', 'x', 1, 1, " + dialect.sql().plusMillis(oldClock, LEASE.toMillis()) + ", " + oldClock
                    + ")");
            for (URL upgrade : dialect.ownTables().upgradeScripts(OwnTable.OUTBOX)) {
                for (String sql : shipped(upgrade, table)) {
                    s.execute(sql);
                }
            }
            try (ResultSet rs =
                    s.executeQuery("SELECT CASE WHEN created_at <= " + db.kind().now() + " AND created_at > "
                            + db.kind().minutesAgo(1) + " THEN 1 ELSE 0 END FROM " + table)) {
                rs.next();
                assertEquals(1, rs.getInt(1), "the upgrade moved the stored instants");
            }
        }
        Baton real = Baton.using(db.dataSource());
        Outbox.Options options = Outbox.Options.defaults().lease(LEASE);
        Outbox outbox = real.outbox(table, options);
        outbox.queue().verify();
        assertEquals(0L, outbox.queue().reclaimExpired(), "the upgrade ended a lease in flight");
        assertEquals(
                1L,
                count(BERLIN, AFTER_LEASE, b -> b.outbox(table, options).queue().reclaimExpired()));
        assertInstanceOf(EnqueueResult.Enqueued.class, outbox.enqueue(Message.of("t", "after the upgrade")));
    }

    /**
     * An own table as the first release made it, never upgraded (MySQL and MariaDB: {@code
     * TIMESTAMP(6)} columns, which this release's UTC clock misreads in each session's zone, so two services in
     * different zones both start the same key) is refused when its object is built, naming the time-column upgrade
     * file it lacks; the statements the refusal carries make it usable. A table the dialect ships no such upgrade for
     * (PostgreSQL: {@code timestamptz} from the first file) is accepted.
     */
    @Test
    void anOwnTableOfTheFirstReleaseIsRefusedNamingItsUpgradeFile() throws Exception {
        Baton real = Baton.using(db.dataSource());
        for (OwnTable which : OwnTable.values()) {
            String table = newTable("v1" + which.ordinal());
            for (String sql : shipped(dialect.ownTables().ddlScript(which).orElseThrow(), which.defaultName(), table)) {
                db.execute(sql);
            }
            Runnable build = () -> {
                switch (which) {
                    case IDEMPOTENCY_KEYS -> real.idempotencyKeys(table);
                    case INBOX -> real.inbox(table);
                    case OUTBOX -> real.outbox(table);
                }
            };
            List<URL> upgrades = dialect.ownTables().upgradeScripts(which).stream()
                    .filter(u -> u.getPath().endsWith("_utc_datetime.sql"))
                    .toList();
            if (upgrades.isEmpty()) {
                build.run();
                continue;
            }
            SchemaMismatchException e = assertThrows(
                    SchemaMismatchException.class, build::run, which + " of the first release was accepted");
            for (URL upgrade : upgrades) {
                String file = upgrade.getPath().substring(upgrade.getPath().lastIndexOf('/') + 1);
                assertTrue(e.getMessage().contains("upgrade file " + file), e.getMessage());
            }
            db.execute(e.ddl().toArray(new String[0]));
            build.run();
        }
    }

    /**
     * {@code StateTable.verify(columns)} checks the time columns it is given as a queue's
     * {@code verify()} checks its own: {@code olderThan}, {@code due} and {@code setNow} use the database's UTC clock,
     * which a zone-dependent type (MySQL and MariaDB {@code TIMESTAMP}: in a session at -05:00 an order created a second
     * ago looked 5 hours old to the expiry sweep) or a local-clock default disagrees with.
     */
    @Test
    void verifyOfAHostTableRefusesTimeColumnsThatDependOnTheSessionZone() {
        String table = newTable("vzone");
        db.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, payment_status INT NOT NULL,"
                + " created_at " + db.kind().zoneUnsafeTimestampType() + " NULL, expires_at "
                + db.kind().timestampType() + " NULL)");
        StateTable<Payment> orders = Baton.using(db.dataSource()).table(table).state("payment_status", Payment.MACHINE);
        orders.verify("expires_at");
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> orders.verify("created_at"));
        assertTrue(e.getMessage().contains("time column created_at is "), e.getMessage());
        assertEquals(1, e.ddl().size(), e.getMessage());
        db.execute(db.kind().localClockDefaultSql(table, "expires_at"));
        if (db.kind().localClockDefaultHoldsWallClock()) {
            SchemaMismatchException local =
                    assertThrows(SchemaMismatchException.class, () -> orders.verify("expires_at"));
            assertTrue(local.getMessage().contains("time column expires_at defaults to "), local.getMessage());
        } else {
            orders.verify("expires_at");
        }
        orders.verify();
    }

    // ---------------------------------------------------------------- fixtures

    /** A shipped file's statements, with {@code baton_outbox} (and the names derived from it) renamed to {@code table}. */
    private static List<String> shipped(URL file, String table) throws IOException {
        return shipped(file, "baton_outbox", table);
    }

    /** A shipped file's statements, with {@code defaultName} (and the names derived from it) renamed to {@code table}. */
    private static List<String> shipped(URL file, String defaultName, String table) throws IOException {
        String text;
        try (InputStream in = file.openStream()) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> out = new ArrayList<>();
        StringBuilder plain = new StringBuilder();
        for (String line : text.split("\n")) {
            if (!line.startsWith("--")) {
                plain.append(line).append('\n');
            }
        }
        for (String sql : plain.toString().split(";")) {
            if (!sql.isBlank()) {
                out.add(sql.strip().replace(defaultName, table));
            }
        }
        return out;
    }

    private String newTable(String prefix) {
        String t = TestDatabases.uniqueName(prefix);
        tables.add(t);
        return t;
    }

    private long count(Host host, long shiftMillis, Function<Baton, Long> work) {
        return on(host, shiftMillis, work);
    }

    private ClaimQueue<Sync> queue(Baton baton) {
        return jobs.queue(baton, LEASE);
    }

    private StateTable<Payment> payments(Baton baton) {
        return baton.table(jobs.name()).state("payment_status", Payment.MACHINE);
    }

    private long code(long id) {
        return ((Number) jobs.get(id, "payment_status")).longValue();
    }

    /**
     * The {@code createdAt} a listener gets for a delivered message (and so {@code baton.outbox.lag}) is the instant
     * the message was stored, whatever the JVM's zone: on MySQL and MariaDB the column holds the UTC wall clock, and
     * was read in the JVM's zone (9 h of lag for an instant delivery in Tokyo).
     */
    @Test
    void anOutboxMessagesCreatedAtIsTheInstantItWasStoredInAnyJvmZone() throws Exception {
        for (String zone : List.of("Asia/Tokyo", "America/New_York")) {
            String table = TestDatabases.uniqueName("zone_outbox");
            tables.add(table);
            TimeZone saved = TimeZone.getDefault();
            TimeZone.setDefault(TimeZone.getTimeZone(zone));
            try {
                List<Instant> created = new java.util.concurrent.CopyOnWriteArrayList<>();
                Baton baton = Baton.builder(inSessionZone(zone.equals("Asia/Tokyo") ? "+09:00" : "-05:00"))
                        .dialect(dialect)
                        .listener(new dev.baton.BatonListener() {
                            @Override
                            public void onDelivered(String outbox, dev.baton.OutboxMessage message, Instant createdAt) {
                                created.add(createdAt);
                            }
                        })
                        .build();
                assertTrue(baton.ownTables().createOutboxTable(table));
                Outbox outbox = baton.outbox(table);
                Instant before = Instant.now();
                outbox.enqueue(Message.of("t", "now"));
                dev.baton.Worker w = outbox.dispatcher(m -> {})
                        .pollInterval(Duration.ofMillis(20), Duration.ofMillis(100))
                        .start();
                try {
                    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                    while (created.isEmpty() && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                } finally {
                    w.close();
                }
                Instant after = Instant.now();
                assertEquals(1, created.size(), zone + ": delivered once");
                Instant c = created.get(0);
                // the database's clock and the JVM's may differ a little; an offset of hours is the defect
                assertTrue(
                        !c.isBefore(before.minusSeconds(60)) && !c.isAfter(after.plusSeconds(60)),
                        zone + ": createdAt is the instant the message was stored; enqueued between " + before + " and "
                                + after + ", listener got " + c);
            } finally {
                TimeZone.setDefault(saved);
            }
        }
    }

    /**
     * Runs {@code work} as {@code host} would: with the JVM's default zone set to the host's (drivers read it when they
     * open a connection) and every connection's session in the host's zone, on a Baton whose database clock is
     * shifted by {@code shiftMillis} ({@link ShiftedClockDialect}; 0 for none).
     */
    private <T> T on(Host host, long shiftMillis, Function<Baton, T> work) {
        TimeZone saved = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone(host.jvmZone()));
        try {
            Baton baton = Baton.builder(inSessionZone(host.sessionOffset()))
                    .dialect(shiftMillis == 0 ? dialect : new ShiftedClockDialect(dialect, shiftMillis))
                    .build();
            return work.apply(baton);
        } finally {
            TimeZone.setDefault(saved);
        }
    }

    /** New connections (no pool) whose session is in the zone {@code offset}. */
    private DataSource inSessionZone(String offset) {
        return (DataSource) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "getConnection":
                            Connection c = db.connect();
                            try (Statement s = c.createStatement()) {
                                s.execute(db.kind().sessionZoneSql(offset));
                            }
                            return c;
                        case "isWrapperFor":
                            return false;
                        case "getLoginTimeout":
                            return 0;
                        case "getLogWriter":
                            return null;
                        case "toString":
                            return db.name() + " in session zone " + offset;
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "equals":
                            return proxy == args[0];
                        default:
                            throw new SQLFeatureNotSupportedException(method.getName());
                    }
                });
    }
}
