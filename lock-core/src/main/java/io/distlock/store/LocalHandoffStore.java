package io.distlock.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link LockStore} whose exclusive grants the engine may pass between threads of one process
 * without a round trip (local handoff), minting the fencing tokens of those handoffs itself. The
 * store records the last token handed out when the grant leaves the process, so that its next
 * token is larger, and can keep a grant for the process in one round trip when nobody else
 * waits. Optional: the engine hands grants over only on stores that implement it.
 */
public interface LocalHandoffStore extends LockStore {

	/**
	 * Release an exclusive grant like {@link #release(LockMode, String, String)}, after making
	 * sure that every later token of the key is larger than {@code lastToken}: the tokens of
	 * local handoffs were minted by the engine, beyond the store's own record. The record is
	 * raised whether or not the grant was still the owner's.
	 * @param key the user key
	 * @param owner the owner of the grant
	 * @param lastToken the largest token handed out under this grant, or 0 when it was never
	 * handed over
	 * @return whether the grant was the owner's and whether another holder waits for the key
	 */
	CompletableFuture<Release> releaseExclusive(String key, String owner, long lastToken);

	/**
	 * At the end of a run of local handoffs, when another thread of this process waits: keep
	 * the exclusive grant for this process if no other holder waits for the key, extending it to
	 * a full lease and minting a new token, and otherwise release it as
	 * {@link #releaseExclusive(String, String, long)} does. One round trip instead of a release
	 * and an acquisition.
	 * @param key the user key
	 * @param owner the owner of the grant
	 * @param lastToken the largest token handed out under this grant, or 0 when it was never
	 * handed over
	 * @param leaseTime the lease of the kept grant
	 * @return {@link Release#KEPT} with the new token, or the release's outcome
	 */
	CompletableFuture<Checkpoint> keepUnlessAwaited(String key, String owner, long lastToken, Duration leaseTime);

	/**
	 * Extend an exclusive grant that was handed between threads of this process to exactly
	 * {@code keepTime} from now, only if the owner still holds it (a release with
	 * {@code holdAtLeast} that keeps the key until then), after raising the token record as
	 * {@link #releaseExclusive(String, String, long)} does: the key is not released, yet every
	 * later token of it must be larger than the last one handed out locally.
	 * @param key the user key
	 * @param owner the owner of the grant
	 * @param lastToken the largest token handed out under this grant
	 * @param keepTime how long the key stays, from now
	 * @return whether the grant was still the owner's and is now kept for that long
	 */
	CompletableFuture<Boolean> keepExclusive(String key, String owner, long lastToken, Duration keepTime);

}
