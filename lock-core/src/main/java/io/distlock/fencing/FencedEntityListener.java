package io.distlock.fencing;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;

import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.PreRemove;
import jakarta.persistence.PreUpdate;

import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.StaleFencingTokenException;

/**
 * A JPA entity listener that fences every update and removal of an entity: before the flush
 * writes the entity, it raises the entity's fence in the fence table
 * ({@link JdbcFencing#advance(String, LockLease)}, on the transaction's connection) to the token
 * of the innermost lock the flushing thread holds. A holder whose lease ran out and whose lock a
 * newer holder has taken since, and written under, gets {@link StaleFencingTokenException} from
 * the flush; nothing of it is written and its transaction rolls back.
 *
 * <pre class="code">
 * &#64;Entity
 * &#64;EntityListeners(FencedEntityListener.class)
 * public class Product { ... }
 * </pre>
 *
 * The fence of an entity is named after the entity and its id, {@code Product:42}
 * ({@link #resource(Class, Object)}); a composite id ({@code @IdClass} or {@code @EmbeddedId})
 * by its attributes, {@code OrderLine:{line=2, order=7}}. Inserts are not fenced: a new row overwrites nothing a
 * newer holder wrote. An update or removal outside a lock fails with
 * {@link IllegalStateException}: a fenced entity is written under its lock only.
 * <p>
 * The check runs when the entity is flushed, after it was read. For a write that depends on
 * what was read (a read-modify-write), also give the entity a JPA {@code @Version}, or raise the
 * same fence first in the transaction, before the read:
 * {@code fencing.advance(FencedEntityListener.resource(Product.class, id))}.
 * <p>
 * The listener is created by the persistence provider's bean container, which under Spring
 * Boot is the application context: it gets the application's {@link JdbcFencing} bean. The
 * transaction manager must expose the JPA transaction's connection to JDBC code, as Spring's
 * {@code JpaTransactionManager} does for Hibernate, so that the fence is raised in the same
 * transaction as the entity's write.
 */
public class FencedEntityListener {

	private static final ClassValue<EntityIdentity> identities = new ClassValue<>() {

		@Override
		protected EntityIdentity computeValue(Class<?> type) {
			return EntityIdentity.of(type);
		}

	};

	private final JdbcFencing fencing;

	/**
	 * Create the listener.
	 * @param fencing the fenced writes on the data source the entities are stored in
	 */
	public FencedEntityListener(JdbcFencing fencing) {
		this.fencing = Objects.requireNonNull(fencing, "fencing must not be null");
	}

	/**
	 * Raise the fence of an entity that is about to be updated or removed.
	 * @param entity the entity
	 * @throws StaleFencingTokenException if a newer holder of the lock has written the entity
	 * @throws IllegalStateException if the flushing thread holds no lock
	 */
	@PreUpdate
	@PreRemove
	public void fence(Object entity) {
		String resource = resourceOf(entity);
		LockLease lease = LockContext.find()
			.orElseThrow(() -> new IllegalStateException("Fenced entity '" + resource
					+ "' written outside a distributed lock; write it under the lock whose token fences it"));
		this.fencing.advance(resource, lease);
	}

	/**
	 * Return the name of an entity's fence in the fence table: the entity's name and its id,
	 * such as {@code Product:42}, to raise it with {@link JdbcFencing#advance(String)} before a
	 * read.
	 * @param entityType the entity class, annotated with {@code @Entity}
	 * @param id the entity's id: for an {@code @IdClass} entity an instance of its id class, for an
	 * {@code @EmbeddedId} one of its embeddable
	 * @return the fence's name
	 */
	public static String resource(Class<?> entityType, Object id) {
		return identities.get(entityType).resource(id);
	}

	/**
	 * Return the fence name of an entity instance, as {@link #fence(Object)} raises it.
	 */
	static String resourceOf(Object entity) {
		return identities.get(entity.getClass()).resourceOf(entity);
	}

	/**
	 * The name and id of an entity class: the {@code @Entity} class in its hierarchy (a
	 * provider's proxy or enhanced subclass has none of its own) and its id: one {@code @Id}
	 * ({@code Product:42}), several {@code @Id} attributes of an {@code @IdClass}, or an
	 * {@code @EmbeddedId}, on fields or getters. A composite id is written as its attributes by
	 * name, {@code OrderLine:{line=2, order=7}}, the same for the entity and for an instance of
	 * its id class or embeddable, whatever their {@code toString()}.
	 */
	private record EntityIdentity(String name, List<IdAttribute> ids, boolean composite) {

		static EntityIdentity of(Class<?> type) {
			Class<?> entity = type;
			while (entity != null && !entity.isAnnotationPresent(Entity.class)) {
				entity = entity.getSuperclass();
			}
			if (entity == null) {
				throw new IllegalArgumentException("'" + type.getName() + "' is not an @Entity");
			}
			String name = entity.getAnnotation(Entity.class).name();
			List<IdAttribute> ids = idAttributes(entity);
			boolean composite = ids.size() > 1 || ids.get(0).embedded();
			return new EntityIdentity(StringUtils.hasText(name) ? name : entity.getSimpleName(), ids, composite);
		}

		private static List<IdAttribute> idAttributes(Class<?> entity) {
			List<IdAttribute> ids = new ArrayList<>();
			for (Class<?> type = entity; type != null && type != Object.class; type = type.getSuperclass()) {
				for (Field field : type.getDeclaredFields()) {
					if (isId(field)) {
						ReflectionUtils.makeAccessible(field);
						ids.add(new IdAttribute(field.getName(), (target) -> ReflectionUtils.getField(field, target),
								field.isAnnotationPresent(EmbeddedId.class)));
					}
				}
				for (Method method : type.getDeclaredMethods()) {
					if (isId(method) && method.getParameterCount() == 0) {
						ReflectionUtils.makeAccessible(method);
						ids.add(new IdAttribute(StringUtils.uncapitalize(method.getName().replaceFirst("^(get|is)", "")),
								(target) -> ReflectionUtils.invokeMethod(method, target),
								method.isAnnotationPresent(EmbeddedId.class)));
					}
				}
			}
			if (ids.isEmpty()) {
				throw new IllegalArgumentException("Entity '" + entity.getName() + "' has no @Id or @EmbeddedId");
			}
			ids.sort(Comparator.comparing(IdAttribute::name));
			return ids;
		}

		private static boolean isId(AnnotatedElement element) {
			return element.isAnnotationPresent(Id.class) || element.isAnnotationPresent(EmbeddedId.class);
		}

		String resourceOf(Object entity) {
			if (this.ids.size() == 1) {
				Object key = this.ids.get(0).value().apply(entity);
				if (key == null) {
					throw new IllegalStateException("Fenced entity '" + this.name + "' has no id yet");
				}
				return resource(key);
			}
			Map<String, Object> attributes = new TreeMap<>();
			for (IdAttribute id : this.ids) {
				Object value = id.value().apply(entity);
				if (value == null) {
					throw new IllegalStateException("Fenced entity '" + this.name + "' has no id yet");
				}
				attributes.put(id.name(), value);
			}
			return this.name + ":" + attributes;
		}

		String resource(Object key) {
			Objects.requireNonNull(key, "id must not be null");
			return this.name + ":" + (this.composite ? attributes(key) : key);
		}

		/** The fields of an id class or embeddable instance, by name. */
		private static Map<String, Object> attributes(Object key) {
			Map<String, Object> attributes = new TreeMap<>();
			for (Class<?> type = key.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
				for (Field field : type.getDeclaredFields()) {
					if (!Modifier.isStatic(field.getModifiers()) && !Modifier.isTransient(field.getModifiers())) {
						ReflectionUtils.makeAccessible(field);
						attributes.putIfAbsent(field.getName(), ReflectionUtils.getField(field, key));
					}
				}
			}
			return attributes;
		}

	}

	/** One id attribute of an entity: its name, how to read it, whether it is an {@code @EmbeddedId}. */
	private record IdAttribute(String name, Function<Object, Object> value, boolean embedded) {

	}

}
