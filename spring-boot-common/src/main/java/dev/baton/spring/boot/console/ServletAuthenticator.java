package dev.baton.spring.boot.console;

import dev.baton.console.ConsoleAuthenticator;
import dev.baton.console.ConsolePermission;
import dev.baton.console.ConsoleRequest;
import dev.baton.console.ConsoleUser;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.EnumSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The servlet request's user and roles: {@code getUserPrincipal()} and {@code isUserInRole(role)}, which Spring
 * Security fills from its {@code SecurityContext} (a role {@code X} is the authority {@code ROLE_X}).
 */
final class ServletAuthenticator implements ConsoleAuthenticator {
    private final String readRole;
    private final String operateRole;

    ServletAuthenticator(String readRole, String operateRole) {
        this.readRole = readRole;
        this.operateRole = operateRole;
    }

    @Override
    public @Nullable ConsoleUser authenticate(ConsoleRequest request) {
        if (!(request.host() instanceof HttpServletRequest servlet)) {
            return null;
        }
        Principal principal = servlet.getUserPrincipal();
        if (principal == null
                || principal.getName() == null
                || principal.getName().isBlank()) {
            return null;
        }
        Set<ConsolePermission> permissions = EnumSet.noneOf(ConsolePermission.class);
        if (servlet.isUserInRole(readRole)) {
            permissions.add(ConsolePermission.READ);
        }
        if (servlet.isUserInRole(operateRole)) {
            permissions.add(ConsolePermission.OPERATE);
        }
        return new ConsoleUser(principal.getName(), permissions);
    }
}
