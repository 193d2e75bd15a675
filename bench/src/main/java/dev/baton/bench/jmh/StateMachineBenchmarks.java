package dev.baton.bench.jmh;

import dev.baton.StateMachine;
import dev.baton.postgres.PostgresDialect;
import dev.baton.spi.SqlError;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Decoding a stored code read from the database ({@code StateMachine.fromCode}, on every read of a state), the
 * legality check, and classifying a driver exception (on the conflict and retry paths).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class StateMachineBenchmarks {
    private StateMachine<Payment> intCodes;
    private StateMachine<Payment> stringCodes;
    private Object rawInteger;
    private Object rawLong;
    private Object rawString;
    private PostgresDialect postgres;
    private SQLException uniqueViolation;

    /** Raw values as a driver returns them: a boxed Integer (INT column), a Long (BIGINT), a fresh String. */
    @Setup
    public void setup() {
        intCodes = Payment.machine(true);
        stringCodes = Payment.machine(false);
        rawInteger = Integer.valueOf(1);
        rawLong = Long.valueOf(1);
        rawString = new String(new char[] {'P', 'A', 'I', 'D'});
        postgres = new PostgresDialect();
        uniqueViolation = new SQLException(
                "ERROR: duplicate key value violates unique constraint \"orders_payment_transaction_id_key\"", "23505");
    }

    /** {@code fromCode} on an INT column's value. */
    @Benchmark
    public Optional<Payment> fromCodeInteger() {
        return intCodes.fromCode(rawInteger);
    }

    /** {@code fromCode} on a BIGINT column's value. */
    @Benchmark
    public Optional<Payment> fromCodeLong() {
        return intCodes.fromCode(rawLong);
    }

    /** {@code fromCode} on a VARCHAR column's value. */
    @Benchmark
    public Optional<Payment> fromCodeString() {
        return stringCodes.fromCode(rawString);
    }

    /** The legality check every {@code transition(…)} makes before any SQL. */
    @Benchmark
    public boolean canTransition() {
        return intCodes.canTransition(Payment.PENDING, Payment.PAID);
    }

    /** Classifying a unique violation (the {@code Conflict} path): SQLState switch and a regex on the message. */
    @Benchmark
    public SqlError classifyUniqueViolation() {
        return postgres.diagnostics().classify(uniqueViolation);
    }
}
