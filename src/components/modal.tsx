// The WAI-ARIA modal dialog.
import React, { useEffect, useLayoutEffect, useRef } from "react";
import { createPortal } from "react-dom";

interface ModalProps {
  open: boolean;
  onClose: () => void;
  titleId: string;
  descriptionId?: string;
  closeLabel: string;
  /** Receives focus when the dialog opens; the dialog itself otherwise. */
  initialFocus?: React.RefObject<HTMLElement>;
  /** False while closing would lose the visitor's work: Escape, × and a click outside then do nothing. */
  dismissible?: boolean;
  children: React.ReactNode;
}

// A form's hidden fields (the signup form's source) are inputs no one can focus.
const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog per the WAI-ARIA dialog pattern (https://www.w3.org/WAI/ARIA/apg/patterns/dialog-modal/):
 * focus moves in and is trapped, Escape, the close button and a click outside close it, the page
 * behind is inert, and focus returns to whatever opened it (or to the main content when that is gone).
 */
export function Modal({
  open,
  onClose,
  titleId,
  descriptionId,
  closeLabel,
  initialFocus,
  dismissible = true,
  children,
}: ModalProps) {
  const panel = useRef<HTMLDivElement>(null);
  const close = dismissible ? onClose : undefined;
  // The key handler always calls the latest close without re-running the focus effect.
  const closeRef = useRef(close);
  useLayoutEffect(() => {
    closeRef.current = close;
  });

  useEffect(() => {
    if (!open) return undefined;
    const opener =
      document.activeElement instanceof HTMLElement && document.activeElement !== document.body
        ? document.activeElement
        : null;
    const page = document.getElementById("___gatsby");
    page?.setAttribute("inert", "");
    const overflow = document.body.style.overflow;
    document.body.style.overflow = "hidden";
    (initialFocus?.current ?? panel.current)?.focus();

    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        event.preventDefault();
        closeRef.current?.();
        return;
      }
      if (event.key !== "Tab" || !panel.current) return;
      const focusable = Array.from(panel.current.querySelectorAll<HTMLElement>(FOCUSABLE));
      if (focusable.length === 0) return;
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      const active = document.activeElement;
      // Measured from where focus is, not from the list: it may sit on a control that was just
      // disabled (the pending "Sending..." button) or on the panel itself.
      const inside = active !== null && panel.current.contains(active);
      const follows = (element: HTMLElement) =>
        inside && (active.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
      const precedes = (element: HTMLElement) =>
        inside && (active.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_PRECEDING) !== 0;
      if (event.shiftKey && !focusable.some(precedes)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && !focusable.some(follows)) {
        event.preventDefault();
        first.focus();
      }
    };
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      page?.removeAttribute("inert");
      document.body.style.overflow = overflow;
      // Without an opener (a dialog opened by the address, or by a button that has since gone, like
      // "Sign up again") focus would fall to <body>, and a keyboard user would start over at the top.
      if (opener?.isConnected) opener.focus();
      else document.querySelector<HTMLElement>("main")?.focus({ preventScroll: true });
    };
  }, [open, initialFocus]);

  if (!open) return null;
  return createPortal(
    <div className="fixed inset-0 z-50 flex items-end justify-center p-4 sm:items-center">
      <div
        aria-hidden="true"
        data-testid="dialog-backdrop"
        className="absolute inset-0 bg-ink/75 motion-safe:animate-[fade-in_150ms_ease-out]"
        onClick={close}
      />
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={descriptionId}
        tabIndex={-1}
        className="relative w-full max-w-md rounded-3xl bg-cream p-7 text-ink shadow-2xl focus:outline-none motion-safe:animate-[rise-in_200ms_ease-out] sm:p-9"
      >
        <button
          type="button"
          onClick={close}
          disabled={!dismissible}
          aria-label={closeLabel}
          className="absolute right-3 top-3 inline-flex h-11 w-11 items-center justify-center rounded-full text-2xl leading-none text-stone-700 hover:bg-ink/10 disabled:cursor-not-allowed disabled:opacity-40 disabled:hover:bg-transparent"
        >
          <span aria-hidden="true">×</span>
        </button>
        {children}
      </div>
    </div>,
    document.body,
  );
}
