package dev.baton.console;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Who is asking, as the host's {@link ConsoleAuthenticator} saw it: a name for the audit log and the permissions the
 * host's roles grant. {@link ConsolePermission#OPERATE} without {@link ConsolePermission#READ} is read as both.
 *
 * @param name the principal's name, written to the audit log with every action; not blank
 * @param permissions what the user may do; may be empty (every page is then refused with 403)
 */
public record ConsoleUser(String name, Set<ConsolePermission> permissions) {
    /**
     * Validates and copies.
     *
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public ConsoleUser {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(permissions, "permissions");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a console user's name must not be blank");
        }
        EnumSet<ConsolePermission> p = EnumSet.noneOf(ConsolePermission.class);
        p.addAll(permissions);
        if (p.contains(ConsolePermission.OPERATE)) {
            p.add(ConsolePermission.READ);
        }
        permissions = Set.copyOf(p);
    }

    /** A user who may look but not act. */
    public static ConsoleUser reader(String name) {
        return new ConsoleUser(name, Set.of(ConsolePermission.READ));
    }

    /** A user who may look and act. */
    public static ConsoleUser operator(String name) {
        return new ConsoleUser(name, Set.of(ConsolePermission.READ, ConsolePermission.OPERATE));
    }

    /** True if the user holds {@code permission}. */
    public boolean may(ConsolePermission permission) {
        return permissions.contains(permission);
    }
}
