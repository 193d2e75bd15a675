package dev.baton;

import dev.baton.internal.Engine;
import dev.baton.internal.values.Identifiers;
import java.util.Objects;

/**
 * A host table being bound: its name and id column. Immutable; each method returns a new value.
 *
 * <pre>{@code
 * StateTable<Payment> orders = baton.table("orders").id("id").state("payment_status", payment);
 * }</pre>
 */
public final class HostTable {
    private final Engine engine;
    private final String name;
    private final String idColumn;

    HostTable(Engine engine, String name, String idColumn) {
        this.engine = engine;
        Identifiers.quoteTable(engine.dialect(), name);
        Identifiers.quote(engine.dialect(), idColumn);
        this.name = name;
        this.idColumn = idColumn;
    }

    /** The id column (default {@code id}); it must be the primary key or unique. */
    public HostTable id(String column) {
        return new HostTable(engine, name, column);
    }

    /**
     * Binds a state column to a state machine.
     *
     * @throws InvalidIdentifierException if the column name is not a plain identifier
     */
    public <S extends Enum<S>> StateTable<S> state(String column, StateMachine<S> machine) {
        return new StateTable<>(engine, name, idColumn, column, Objects.requireNonNull(machine, "machine"));
    }

    /** The table name as configured. */
    public String name() {
        return name;
    }

    /** The id column. */
    public String idColumn() {
        return idColumn;
    }
}
