package dev.baton;

import java.util.List;

/**
 * A host table that does not fit its binding: a missing table, column or index, or a column of an unusable type. The
 * message lists every problem and the exact DDL that fixes it; {@link #ddl()} gives the statements alone. Thrown by
 * {@code verify()}, and at run time when the database refuses a statement because a column it names does not exist
 * (then with the driver's {@link java.sql.SQLException} as the cause).
 */
public final class SchemaMismatchException extends ConfigurationException {
    private static final long serialVersionUID = 1L;
    private final List<String> problems;
    private final List<String> ddl;

    /** Creates an exception from the problems found and the DDL that would fix them. */
    public SchemaMismatchException(String table, List<String> problems, List<String> ddl) {
        super(message(table, problems, ddl));
        this.problems = List.copyOf(problems);
        this.ddl = List.copyOf(ddl);
    }

    /** Creates an exception from the problems a database failure revealed, keeping that failure as the cause. */
    public SchemaMismatchException(String table, List<String> problems, List<String> ddl, Throwable cause) {
        super(message(table, problems, ddl), cause);
        this.problems = List.copyOf(problems);
        this.ddl = List.copyOf(ddl);
    }

    /** Each problem found, in words. */
    public List<String> problems() {
        return problems;
    }

    /** DDL statements that fix the problems, in order; empty when no statement can (for example a wrong type). */
    public List<String> ddl() {
        return ddl;
    }

    private static String message(String table, List<String> problems, List<String> ddl) {
        StringBuilder sb = new StringBuilder("table ").append(table).append(" does not fit its Baton binding:");
        for (String p : problems) {
            sb.append("\n  - ").append(p);
        }
        if (!ddl.isEmpty()) {
            sb.append("\nTo fix it, run:");
            for (String d : ddl) {
                sb.append("\n  ").append(d).append(';');
            }
        }
        return sb.toString();
    }
}
