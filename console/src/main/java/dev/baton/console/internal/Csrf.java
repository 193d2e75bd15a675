package dev.baton.console.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Session ids and the CSRF token of each session: the token is an HMAC of the session id and the principal under a
 * key drawn when the console starts, so nothing is stored per session, a token works for one session and one user
 * only, and every token lapses when the process restarts.
 */
public final class Csrf {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final byte[] key = new byte[32];

    public Csrf() {
        RANDOM.nextBytes(key);
    }

    /** A new random session id. */
    public String newSession() {
        byte[] b = new byte[18];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** True if {@code session} looks like one of {@link #newSession()}'s ids. */
    public static boolean wellFormed(@Nullable String session) {
        return session != null && session.matches("[A-Za-z0-9_-]{24}");
    }

    /** The token of {@code session} for {@code principal}. */
    public String token(String session, String principal) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] h = mac.doFinal((session + '\n' + principal).getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(h);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
        }
    }

    /** True if {@code given} is the token of {@code session} for {@code principal} (compared in constant time). */
    public boolean check(@Nullable String session, String principal, @Nullable String given) {
        if (!wellFormed(session) || given == null) {
            return false;
        }
        return MessageDigest.isEqual(
                token(session, principal).getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
    }
}
