package dev.baton;

import dev.baton.internal.Engine;
import dev.baton.internal.KeyText;
import dev.baton.internal.tables.InboxStatements;
import dev.baton.internal.tables.OwnTableUpgrades;
import dev.baton.spi.Dialect;
import dev.baton.spi.OwnTableDialect.OwnTable;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Deduplication of incoming messages (gateway callbacks, webhooks, queue deliveries) in a table Baton owns (see
 * {@link OwnTables} for its DDL): the first delivery of a {@code (source, message id)} wins, every later one is reported
 * as {@link ReceiveResult.Duplicate}, never as an error.
 *
 * <pre>{@code
 * Inbox inbox = baton.inbox(Inbox.DEFAULT_TABLE);
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     if (inbox.receive(c, "gateway", event.id()).first()) {
 *         applyEvent(c, event);      // in the same transaction: a rollback forgets the delivery as well
 *     }
 *     c.commit();
 * }
 * }</pre>
 *
 * <p>Prefer the form on the caller's connection when handling a message can fail: the delivery is recorded only if
 * the handling commits with it. The form on the data source records the delivery at once, before the caller handles
 * it, so a crash after {@code receive} loses that message (at most once).
 *
 * <p>Immutable and thread-safe. Sources and message ids are checked before any SQL runs ({@link IllegalKeyException}).
 */
public final class Inbox {
    /** The default table name, used by the DDL resources the dialect modules ship. */
    public static final String DEFAULT_TABLE = "baton_inbox";

    /**
     * The youngest age {@link #deleteOlderThan} accepts. A receive whose reply was lost looks for its record's receipt
     * when it retries, after reconnecting (seconds, or several times the pool's connection timeout): a record deleted
     * before that look would make the retry store it again and report the message as received for the first time.
     */
    public static final Duration MIN_DELETE_AGE = Duration.ofMinutes(10);

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Engine engine;
    private final String table;
    private final InboxStatements statements;

    Inbox(Engine engine, String table) {
        Dialect d = engine.dialect();
        this.engine = engine;
        this.table = table;
        this.statements = new InboxStatements(d, table);
        OwnTableUpgrades.require(engine, OwnTable.INBOX, table);
    }

    /** The table name as configured. */
    public String table() {
        return table;
    }

    /**
     * Records the delivery of {@code messageId} from {@code source} on the data source, in its own statement, unless
     * it was recorded before. Atomic against every other {@code receive} of the same message, in this process or any
     * other: exactly one gets {@link ReceiveResult.FirstDelivery}.
     *
     * @param source where the message comes from (e.g. {@code stripe}); 1 to 255 characters
     * @param messageId the sender's id of the message; 1 to 255 characters
     * @return {@link ReceiveResult.FirstDelivery} or {@link ReceiveResult.Duplicate}; never null
     * @throws NullPointerException if an argument is null (before any SQL)
     * @throws IllegalKeyException if an argument is empty, blank, too long, padded with whitespace or holds control
     *     characters (before any SQL)
     * @throws DataAccessException on a database failure that outlasted the transient retries
     */
    public ReceiveResult receive(String source, String messageId) {
        check(source, messageId);
        long receipt = RANDOM.nextLong();
        boolean[] retry = {false};
        String operation = "receive message '" + messageId + "' from '" + source + "'";
        return engine.tx().joinOr(operation, c -> receive(c, source, messageId), () -> engine.tx()
                .autocommit(operation, c -> {
                    boolean mayBeOurs = retry[0];
                    retry[0] = true;
                    return receive(c, source, messageId, receipt, mayBeOurs);
                }));
    }

    /**
     * Like {@link #receive(String, String)}, on the caller's connection and inside its transaction if one is open: a
     * rollback forgets the delivery, so a redelivery is a {@link ReceiveResult.FirstDelivery} again. Until the caller
     * commits, a concurrent {@code receive} of the same message waits for it. Never commits, rolls back or retries; a
     * duplicate leaves the transaction usable (also on PostgreSQL).
     *
     * @throws NullPointerException if an argument is null (before any SQL)
     * @throws IllegalKeyException if an argument is not acceptable (before any SQL)
     * @throws DataAccessException on a database failure (the caller decides about its transaction)
     */
    public ReceiveResult receive(Connection connection, String source, String messageId) {
        Objects.requireNonNull(connection, "connection");
        check(source, messageId);
        try {
            return receive(connection, source, messageId, RANDOM.nextLong(), false);
        } catch (SQLException e) {
            throw new DataAccessException("receive message '" + messageId + "' from '" + source + "'", e);
        }
    }

    /**
     * Deletes deliveries recorded more than {@code age} ago by the database clock, in batches of at most 500 rows,
     * each its own statement, until a batch comes back short. A message redelivered after its record was deleted is
     * a first delivery again, so keep records longer than senders retry. Safe to run from several processes at once.
     *
     * @param age at least {@link #MIN_DELETE_AGE}, at most 3650 days
     * @return the number of records deleted
     * @throws ConfigurationException if {@code age} is out of range (before any SQL)
     * @throws DataAccessException on a database failure that outlasted the transient retries
     */
    public long deleteOlderThan(Duration age) {
        return statements.delete(engine, "delete old deliveries from " + table, deleteSql(age));
    }

    /**
     * The SQL this binding runs: insert-if-absent, the receipt read after a duplicate on a retry, one batch of
     * {@link #deleteOlderThan} for {@code age}. Values are bind parameters; for logs and exact-SQL tests.
     */
    public List<String> sql(Duration age) {
        List<String> sql = new ArrayList<>(statements.sql());
        sql.add(deleteSql(age));
        return List.copyOf(sql);
    }

    private String deleteSql(Duration age) {
        Objects.requireNonNull(age, "age");
        if (age.compareTo(Duration.ofDays(3650)) > 0 || age.compareTo(MIN_DELETE_AGE) < 0) {
            throw new ConfigurationException("age must be " + MIN_DELETE_AGE + " to 3650 days, was " + age + " (inbox "
                    + table + "): a receive retrying after a lost reply looks for its record, and a record deleted"
                    + " younger than that would let the message be received a second time");
        }
        return statements.deleteSql(age);
    }

    /**
     * Inserts the delivery; on a duplicate, reads the stored receipt only when an earlier attempt of this same call
     * may have committed before its connection was lost ({@code mayBeOurs}), so that it still reports FirstDelivery.
     */
    private ReceiveResult receive(Connection c, String source, String messageId, long receipt, boolean mayBeOurs)
            throws SQLException {
        boolean inserted = statements.insert(c, source, messageId, receipt);
        if (inserted) {
            return new ReceiveResult.FirstDelivery(source, messageId);
        }
        if (!mayBeOurs) {
            return new ReceiveResult.Duplicate(source, messageId);
        }
        if (statements.hasReceipt(c, source, messageId, receipt)) {
            return new ReceiveResult.FirstDelivery(source, messageId);
        }
        return new ReceiveResult.Duplicate(source, messageId);
    }

    private static void check(String source, String messageId) {
        KeyText.check("source", source, KeyText.COLUMN_LENGTH);
        KeyText.check("message id", messageId, KeyText.COLUMN_LENGTH);
    }

    @Override
    public String toString() {
        return "Inbox[" + table + "]";
    }
}
