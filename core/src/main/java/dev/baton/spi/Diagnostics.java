package dev.baton.spi;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A database's reading of what went wrong or would go wrong: driver errors, claim plans, server settings. Stateless
 * and thread-safe.
 */
public interface Diagnostics {

    /** Classifies a driver exception. */
    SqlError classify(SQLException e);

    /**
     * Whether the server behind {@code connection} refuses writes: a hot standby, a primary demoted by a failover, a
     * server switched to read-only. Baton asks it of each connection it borrows after a {@linkplain SqlError#failover()
     * failover error}, and aborts those that answer true (a pool keeps its connections to a demoted primary, which
     * answers every write with a read-only error). Default: false, without a query.
     *
     * @param connection a connection just borrowed from the pool
     * @throws SQLException if the server cannot be asked (the connection is then treated as lost)
     */
    default boolean refusesWrites(Connection connection) throws SQLException {
        return false;
    }

    /**
     * A position in the server's write-ahead log at or after everything this connection has committed, for {@link
     * #standbysFlushedTo}: how Baton learns whether a SENDING mark would survive a failover ({@link
     * dev.baton.SendDurability}). Asked on the connection that just committed the mark. Default: empty (the database
     * cannot say), without a query.
     *
     * @param connection the connection that committed
     * @throws SQLException if the server cannot be asked
     */
    default Optional<String> commitPosition(Connection connection) throws SQLException {
        return Optional.empty();
    }

    /**
     * How many standbys of this server have flushed its log up to {@code position} (from {@link #commitPosition}):
     * standbys a failover could promote without losing what was committed before it. Default: 0, without a query.
     *
     * @param connection a connection to the server that gave the position
     * @param position the position
     * @throws SQLException if the server cannot be asked
     */
    default int standbysFlushedTo(Connection connection, String position) throws SQLException {
        return 0;
    }

    /**
     * How many standbys stream from this server and could be promoted without losing what it committed a moment ago
     * (PostgreSQL: streaming, replaying standbys in {@code pg_stat_replication}): what {@link dev.baton.QueueHealth}
     * and {@code verify()} report for a queue whose {@link dev.baton.SendDurability} is not {@code OFF}. Empty when the
     * database, or this database user, cannot say. Default: empty, without a query.
     *
     * @param connection a connection to the writer
     * @throws SQLException if the server cannot be asked
     */
    default java.util.OptionalInt failoverStandbys(Connection connection) throws SQLException {
        return java.util.OptionalInt.empty();
    }

    /**
     * The writer's epoch: a value that changes when a failover makes another server the writer, and only then
     * (PostgreSQL: the timeline, which each promotion moves on by one). Baton reads it before each claim of a queue
     * with a non-idempotent sink; when it changes, the SENDING marks this process committed shortly before may be gone
     * with the old writer, and their rows go to reconciliation instead of being claimed again ({@link
     * dev.baton.EpochChange}). Default: empty (the database cannot say), without a query.
     *
     * @param connection a connection about to claim
     * @throws SQLException if the server cannot be asked
     */
    default Optional<String> epoch(Connection connection) throws SQLException {
        return Optional.empty();
    }

    /**
     * The writer's {@linkplain #epoch epoch} and whether its commits are synchronous now, in one round trip: what Baton
     * reads before each claim of a queue with a non-idempotent sink. A SENDING mark whose commit started after a
     * reading that found synchronous commits, and returned before any reading found otherwise, is known durable; when
     * this process's last reading before an epoch change found synchronous commits and none of its marks was lost, the
     * claims after the change are not held ({@link dev.baton.EpochChange#HOLD}). A dialect that overrides it reports
     * the same epoch as {@link #epoch}, and true only when a commit made now returns after another server a failover
     * could promote has it. Default: {@link #epoch}, never synchronous.
     *
     * @param connection a connection about to claim
     * @throws SQLException if the server cannot be asked
     */
    default Optional<WriterEpoch> writer(Connection connection) throws SQLException {
        return epoch(connection).map(e -> new WriterEpoch(e, false));
    }

    /**
     * For a database whose {@linkplain #epoch epochs} only grow (a number that every promotion raises): a condition,
     * with one {@code ?} bound to an epoch's {@linkplain #epochOrder order}, that is true only on a server whose epoch
     * now is at least the bound one. The SENDING mark of a queue with a non-idempotent sink carries it, bound to the newest epoch this process has
     * seen, and a claim that reads an epoch older than that one fails as on a read-only server: once a process has seen
     * the new writer, an old primary that still takes writes (frozen past the failover manager's timeout, then
     * resumed) takes none of its claims or marks. Present only with {@link #epochOrder}. Default: empty (epochs are
     * names, not ordered).
     */
    default Optional<String> epochAtLeast() {
        return Optional.empty();
    }

    /**
     * The place of {@code epoch} (as {@link #epoch} reports it) in the order of {@link #epochAtLeast}: a later writer's
     * epoch has a higher number. Default: empty (not ordered).
     *
     * @param epoch an epoch this dialect reported
     */
    default OptionalLong epochOrder(String epoch) {
        return OptionalLong.empty();
    }

    /**
     * Checks that an index serves a claim (no full scan, no sort of every candidate), by asking the planner, and
     * returns a description of the problem if not. The default checks nothing.
     *
     * @param connection a connection to run EXPLAIN on
     * @param spec the claim
     * @param args values for the spec's {@link Param}s
     * @throws SQLException if the planner cannot be asked
     */
    default Optional<String> claimPlanProblem(Connection connection, BatchUpdateSpec spec, @Nullable Object[] args)
            throws SQLException {
        return Optional.empty();
    }

    /**
     * Checks that an index serves a batch that updates rows under locks (a bulk transition, a queue's expiry sweep),
     * by asking the planner, and returns a description of the problem if not: on a database where a scan locks every
     * row it reads (SQL Server, which escalates past about 5,000 row locks to a table lock). The default checks
     * nothing.
     *
     * @param connection a connection to ask the planner on
     * @param spec the batch, without {@link Param}s
     * @throws SQLException if the planner cannot be asked
     */
    default Optional<String> batchPlanProblem(Connection connection, BatchUpdateSpec spec) throws SQLException {
        return Optional.empty();
    }

    /**
     * Checks once, at configuration time, that the database stores values exactly as given, or fails loudly: for
     * example that MySQL runs in strict mode (without it, an over-long value is silently truncated) and accepts
     * packets large enough for {@code largestValueBytes}. Returns the problems found, each a sentence that says how to
     * fix it. Default: none, without connecting.
     *
     * @param dataSource where to look; a dialect that needs no check does not connect
     * @param largestValueBytes the largest binary value Baton will write
     * @throws SQLException if the check cannot run
     */
    default List<String> storageProblems(DataSource dataSource, long largestValueBytes) throws SQLException {
        return List.of();
    }

    /**
     * For a server whose reported version alone does not decide {@link Dialect#supports}: asks the server itself, on
     * the connection Baton detects the dialect with. For example, Azure SQL Database reports major version 12 through
     * the driver, and only its engine edition shows it has every feature of SQL Server 2016+. Called only when no
     * dialect supports the version reported. Default: false, without a query.
     *
     * @param info what the driver reports
     * @param connection an open connection to the server
     * @throws SQLException if the server cannot be asked
     */
    default boolean supportsOnAsking(DatabaseInfo info, Connection connection) throws SQLException {
        return false;
    }

    /**
     * Checks that the server is the engine this dialect's guarantees hold on, not another that speaks its protocol and
     * breaks what a claim relies on: a row lock that {@code SKIP LOCKED} (or {@code READPAST}) honours and that is held
     * until commit. Returns why not, naming the engine. Baton refuses to start when it detects the dialect and the
     * check finds a problem ({@link dev.baton.UnsupportedDatabaseException}); {@code verify()} reports it when the
     * dialect was given explicitly. Default: no problem, without a query.
     *
     * @param connection an open connection from the host's data source
     * @throws SQLException if the server cannot be asked
     */
    default Optional<String> engineProblem(Connection connection) throws SQLException {
        return Optional.empty();
    }

    /**
     * Checks once, when Baton detects the dialect, that a session is set up as Baton needs (for example that SQL
     * Server sessions report row counts, without {@code SET NOCOUNT ON}). Returns the problems found, each a sentence
     * that says how to fix it; Baton refuses to start with any. Not called when the dialect is given explicitly.
     * Default: none, without a query.
     *
     * @param connection an open connection from the host's data source
     * @throws SQLException if the check cannot run
     */
    default List<String> sessionProblems(Connection connection) throws SQLException {
        return List.of();
    }

    /**
     * Asked after a unique violation inside a caller's transaction (autocommit off), which Baton reports as an
     * expected result that leaves the transaction usable (a {@code Conflict}): whether the error ended the whole
     * transaction instead, as SQL Server does with {@code SET XACT_ABORT ON}. Baton then throws
     * {@link dev.baton.TransactionRolledBackException}. Default: false, without a query.
     *
     * @param connection the caller's connection, right after the error
     * @throws SQLException if the server cannot be asked
     */
    default boolean errorEndedTransaction(Connection connection) throws SQLException {
        return false;
    }
}
