package dev.baton.console.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Session ids and the CSRF tokens of each session: a token is its expiry and an HMAC of the session id, the principal
 * and that expiry, so nothing is stored per session and a token works for one session and one user only, until it
 * expires. The key is the host's (the same on every instance of a deployment: a token of one is good on the others)
 * or, without one, drawn when the console starts (every token then lapses when the process restarts and is refused by
 * any other process). Thread-safe.
 */
public final class Csrf {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final byte[] key;
    private final Duration lifetime;

    /**
     * @param key the HMAC key, or null to draw one
     * @param lifetime how long a token is good for after it was issued
     */
    public Csrf(byte @Nullable [] key, Duration lifetime) {
        if (key == null) {
            key = new byte[32];
            RANDOM.nextBytes(key);
        }
        this.key = key.clone();
        this.lifetime = lifetime;
    }

    /** How long a token (and the session cookie) lasts. */
    public Duration lifetime() {
        return lifetime;
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

    /** A token of {@code session} for {@code principal}, good for the lifetime from {@code now}. */
    public String token(String session, String principal, Instant now) {
        return tokenUntil(session, principal, now.plus(lifetime).getEpochSecond());
    }

    /** The token of {@code session} for {@code principal} that expires at {@code expiresAt} (epoch seconds). */
    public String tokenUntil(String session, String principal, long expiresAt) {
        return Long.toString(expiresAt, 36) + "." + mac(session + '\n' + principal + '\n' + expiresAt);
    }

    private String mac(String text) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] h = mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(h);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
        }
    }

    /**
     * True if {@code given} is a token of {@code session} for {@code principal} that has not expired at {@code now}
     * (the HMAC compared in constant time).
     */
    public boolean check(@Nullable String session, String principal, @Nullable String given, Instant now) {
        if (!wellFormed(session) || given == null || given.length() > 100) {
            return false;
        }
        int dot = given.indexOf('.');
        if (dot < 1 || dot > 12 || !given.substring(0, dot).matches("[0-9a-z]+")) {
            return false;
        }
        long expiresAt = Long.parseLong(given.substring(0, dot), 36);
        boolean right = MessageDigest.isEqual(
                tokenUntil(session, principal, expiresAt).getBytes(StandardCharsets.UTF_8),
                given.getBytes(StandardCharsets.UTF_8));
        return right && now.getEpochSecond() < expiresAt;
    }
}
