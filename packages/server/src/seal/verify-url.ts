/** The public page where anyone can check a sealed document (no login). */
export const verifyUrlOf = (publicUrl: string, documentId: string): string => `${publicUrl}/verify/${documentId}`
